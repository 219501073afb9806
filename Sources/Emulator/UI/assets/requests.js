'use strict';
// Requests: every store access with its rules verdict (filter by outcome, method, path and caller),
// the detail with the ruleset and the deciding lines highlighted, and rule coverage.
(function () {
  const h = UI.h;

  function callerText(c) {
    if (c.kind === 'admin') return 'admin';
    if (c.kind === 'unauthenticated') return 'unauthenticated';
    return (c.uid || '') + (c.provider ? ' (' + c.provider + ')' : '');
  }

  /** The ruleset with line numbers; `marks` maps line → class names; `notes` line → text. */
  function source(text, marks, notes) {
    const lines = text.split('\n');
    return h('div.source', { role: 'region', 'aria-label': 'Ruleset source', tabindex: '0' }, lines.map((l, i) => {
      const n = i + 1;
      return h('div.ln', { class: marks[n] || null, dataset: { line: String(n) } }, h('span', { text: String(n) }), h('code', { text: l || ' ' }), h('span.note', { text: notes[n] || '' }));
    }));
  }

  function detail(e) {
    const marks = {}, notes = {};
    for (const d of e.deciding || []) {
      marks[d.statementLine] = ((marks[d.statementLine] || '') + ' statement').trim();
      marks[d.line] = ((marks[d.line] || '').replace(/\b(allow|deny|error)\b/g, '') + ' ' + d.outcome).trim();
      notes[d.line] = d.outcome + ': ' + d.expression;
    }
    const first = (e.deciding || [])[0];
    const box = h('section.card', { 'aria-label': 'Evaluation ' + e.id },
      h('div.row', {}, UI.badge(e.outcome), h('strong.grow', { text: e.method + ' ' + e.path })),
      UI.kv([['Time', UI.time(e.time) + ' (' + e.time + ')'], ['Caller', callerText(e.caller)], ['Database', e.database], ['Rules', e.rulesFile || 'none']]),
      h('h3', { text: 'Why' }), h('pre.explanation', { text: e.explanation }),
      (e.deciding || []).length ? h('div', {}, h('h3', { text: 'Deciding expressions' }), h('ul', {}, e.deciding.map((d) =>
        h('li', {}, UI.badge(d.outcome), ' line ' + d.line + ':' + d.column + ' ', h('code', { text: d.expression }))))) : null,
      e.debug ? h('div', {}, h('h3', { text: 'debug()' }), h('pre', { text: e.debug.join('\n') })) : null,
      e.rules ? h('div', {}, h('h3', { text: e.rules.fileName }), source(e.rules.content, marks, notes)) :
        h('p.muted', { text: e.outcome === 'admin' ? 'Administrator requests bypass Security Rules.' : 'No ruleset: the open development default allows everything.' }));
    // Scroll the source box (not the page) to the first deciding line.
    if (first) setTimeout(() => { const el = box.querySelector('.ln[data-line="' + first.line + '"]'); if (el) el.parentElement.scrollTop = Math.max(0, el.offsetTop - el.parentElement.clientHeight / 3); }, 0);
    return box;
  }

  async function coverage(ctx) {
    const [rules, cov] = await Promise.all([UI.get(UI.projectPath(':securityRules')), UI.get(UI.projectPath(':ruleCoverage')).catch((e) => ({ error: e }))]);
    if (!ctx.alive) return;
    const file = rules.rules.files[0];
    if (!file) { ctx.main.append(h('p.muted', { text: 'This project runs the open development default: no rules to cover.' })); return; }
    const byLine = {};
    for (const x of cov.expressions || []) (byLine[x.line] = byLine[x.line] || []).push(x);
    const marks = {}, notes = {};
    for (const [line, xs] of Object.entries(byLine)) {
      const hit = xs.some((x) => x.true + x.false + x.error + x.value > 0), err = xs.some((x) => x.error > 0);
      marks[line] = err ? 'err' : hit ? 'hit' : 'miss';
      notes[line] = xs.map((x) => '✔' + x.true + ' ✘' + x.false + (x.error ? ' ⚠' + x.error : '')).join('  ');
    }
    ctx.main.append(h('p.muted.small', { text: 'Per expression: ✔ true, ✘ false, ⚠ error, counted since the ruleset was loaded. Green lines ran, red lines never did.' }),
      source(file.content, marks, notes));
  }

  UI.pages.requests = {
    title: 'Requests',
    async render(ctx) {
      const q = ctx.loc.query;
      const view = q.get('view') === 'coverage' ? 'coverage' : 'log';
      ctx.main.append(h('h1', { text: 'Requests' }), UI.tabs([['log', 'Rules evaluations', UI.href('requests')], ['coverage', 'Coverage', UI.href('requests', '', { view: 'coverage' })]], view));
      if (view === 'coverage') return coverage(ctx);
      const sel = (label, values, current) => h('select', { 'aria-label': label }, values.map(([v, t]) => h('option', { value: v, text: t, selected: v === (current || '') })));
      const outcome = sel('Outcome', [['', 'Any outcome'], ['allow', 'allow'], ['deny', 'deny'], ['error', 'error'], ['admin', 'admin']], q.get('outcome'));
      const method = sel('Method', [['', 'Any method'], ['get', 'get'], ['list', 'list'], ['create', 'create'], ['update', 'update'], ['delete', 'delete']], q.get('method'));
      const path = h('input', { type: 'search', placeholder: 'Path contains', value: q.get('path') || '', 'aria-label': 'Path contains' });
      const caller = h('input', { type: 'search', placeholder: 'Caller: uid, provider, admin, unauthenticated', value: q.get('caller') || '', 'aria-label': 'Caller' });
      const live = h('input', { type: 'checkbox', checked: true });
      const count = h('p.muted.small', { 'aria-live': 'polite' });
      const list = h('div'), side = h('div');
      ctx.main.append(h('div.toolbar', {}, outcome, method, path, caller, h('label.check', {}, live, 'Live'),
        h('button', { type: 'button', text: 'Clear log', onclick: async (ev) => {
          await UI.act(ev.target, () => UI.api('DELETE', UI.projectPath('/rulesEvaluations')));
          side.replaceChildren();
          load();
        } })), count, h('div.split', {}, list, side));
      let selected = q.get('id');
      const params = () => {
        const p = { outcome: outcome.value, method: method.value, path: path.value.trim(), caller: caller.value.trim() };
        return Object.fromEntries(Object.entries(p).filter(([, v]) => v));
      };
      async function open(id, tr) {
        selected = id;
        for (const x of list.querySelectorAll('tr.selected')) x.classList.remove('selected');
        if (tr) tr.classList.add('selected');
        history.replaceState(null, '', UI.href('requests', '', Object.assign(params(), { id })));
        try { const e = await UI.get(UI.projectPath('/rulesEvaluations/' + UI.enc(id))); if (ctx.alive && selected === id) side.replaceChildren(detail(e)); } catch (e) { side.replaceChildren(UI.errorBox(e)); }
      }
      let token = null, shownFirst = null, pagedOlder = false;
      const columns = [
        { title: 'Time', cell: (e) => UI.time(e.time), class: 'nowrap' },
        { title: 'Outcome', cell: (e) => UI.badge(e.outcome) },
        { title: 'Method', cell: (e) => e.method },
        { title: 'Path', cell: (e) => h('code', { text: e.path }), class: 'wrap' },
        { title: 'Caller', cell: (e) => callerText(e.caller), class: 'wrap' },
      ];
      async function load(append) {
        const p = new URLSearchParams(Object.assign({ pageSize: '100' }, params()));
        if (append && token) { p.set('pageToken', token); pagedOlder = true; }
        const r = await UI.get(UI.projectPath('/rulesEvaluations?' + p.toString()));
        if (!ctx.alive) return;
        if (!append && r.evaluations.length && r.evaluations[0].id === shownFirst) return;  // nothing new
        token = r.nextPageToken || null;
        count.textContent = UI.num(r.kept) + ' evaluations kept (the newest ' + UI.num(r.capacity) + ' per project), newest first';
        const onOpen = (e, tr) => open(e.id, tr);
        if (!append) {
          shownFirst = r.evaluations.length ? r.evaluations[0].id : null;
          list.replaceChildren(r.evaluations.length ? UI.table(columns, r.evaluations, onOpen, { label: 'Rules evaluations', key: (e) => e.id }) : h('div.empty', { text: 'No evaluations match. Make a request with a client SDK or an ID token and it shows here.' }));
        } else UI.appendRows(list.querySelector('tbody'), columns, r.evaluations, onOpen, { key: (e) => e.id });
        const more = list.querySelector('.more');
        if (more) more.remove();
        if (token) list.append(h('div.more', {}, h('button', { type: 'button', text: 'Older', onclick: (ev) => UI.act(ev.target, () => load(true)) })));
        if (selected) { const tr = list.querySelector('tr[data-key="' + CSS.escape(selected) + '"]'); if (tr) tr.classList.add('selected'); }
      }
      const refilter = UI.debounce(() => { shownFirst = null; pagedOlder = false; history.replaceState(null, '', UI.href('requests', '', params())); load().catch((e) => list.replaceChildren(UI.errorBox(e))); }, 250);
      for (const x of [outcome, method]) x.addEventListener('change', refilter);
      for (const x of [path, caller]) x.addEventListener('input', refilter);
      await load();
      if (selected) open(selected, list.querySelector('tr[data-key="' + CSS.escape(selected) + '"]'));
      ctx.onStop(UI.every(1500, async () => { if (live.checked && !pagedOlder) await load(); }));
    },
  };
})();