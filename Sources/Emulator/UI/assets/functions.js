'use strict';
// Functions: registered functions and their triggers, invocations (status, duration, retries,
// logs, input), filters, and re-running a recorded event.
(function () {
  const h = UI.h;

  function detail(inv, reload) {
    const rerun = inv.rerunnable ? h('button.primary', { type: 'button', text: 'Re-run event', onclick: (ev) => UI.act(ev.target, async () => {
      const r = await UI.api('POST', UI.projectPath('/functions/invocations/' + UI.enc(inv.id) + ':rerun'));
      UI.toast('Queued ' + r.function + ' again with event ' + r.eventId);
      reload();
    }) }) : null;
    return h('section.card', { 'aria-label': 'Invocation ' + inv.id },
      h('div.row', {}, UI.badge(inv.outcome), h('strong.grow', { text: inv.function + ' · ' + inv.trigger }), rerun),
      UI.kv([['Started', UI.time(inv.startTime) + ' (' + inv.startTime + ')'], ['Duration', inv.durationMs.toFixed(2) + ' ms'], ['Attempt', String(inv.attempt)],
        ['Event', inv.eventId], ['Error', inv.error ? h('pre', { text: inv.error }) : null], ['Invocation', h('code', { text: inv.id })]]),
      h('h3', { text: 'Logs' }), inv.logs.length ? h('pre.logs', { text: inv.logs.join('\n') }) : h('p.muted', { text: 'Nothing logged.' }),
      h('h3', { text: 'Input' }), inv.input != null ? h('pre', { text: UI.json(inv.input) }) : h('p.muted', { text: 'Not kept (inputs are kept for the newest 200 invocations).' }));
  }

  UI.pages.functions = {
    title: 'Functions',
    async render(ctx) {
      const q = ctx.loc.query;
      const [fns] = await Promise.all([UI.get(UI.projectPath('/functions'))]);
      if (!ctx.alive) return;
      const fnSel = h('select', { 'aria-label': 'Function' }, h('option', { value: '', text: 'All functions' }), fns.functions.map((f) => h('option', { value: f.name, text: f.name, selected: f.name === q.get('function') })));
      const outSel = h('select', { 'aria-label': 'Outcome' }, [['', 'Any outcome'], ['ok', 'ok'], ['error', 'error'], ['gave-up', 'gave up']].map(([v, t]) => h('option', { value: v, text: t, selected: v === (q.get('outcome') || '') })));
      const text = h('input', { type: 'search', placeholder: 'Search logs, errors, triggers', value: q.get('q') || '', 'aria-label': 'Search invocations' });
      const live = h('input', { type: 'checkbox', checked: true });
      const list = h('div'), side = h('div'), count = h('p.muted.small', { 'aria-live': 'polite' });
      ctx.main.append(h('h1', { text: 'Functions' }),
        h('section.card', { 'aria-label': 'Registered functions' }, h('h2', { text: 'Registered' }),
          fns.functions.length ? UI.table([
            { title: 'Name', cell: (f) => h('code', { text: f.name }) }, { title: 'Trigger', cell: (f) => f.trigger },
            { title: 'Region', cell: (f) => f.region, class: 'hide-narrow' }, { title: 'Retries', cell: (f) => (f.retry ? 'yes' : 'no') }], fns.functions, null, { label: 'Functions' })
            : h('p.muted', { text: 'No functions registered in this project. Configure a codebase under functions.codebases (docs/functions.md).' })),
        h('h2', { text: 'Invocations' }),
        h('div.toolbar', {}, fnSel, outSel, text, h('label.check', {}, live, 'Live')), count, h('div.split', {}, list, side));
      let selected = q.get('id'), lastKey = null;
      const params = () => Object.fromEntries(Object.entries({ function: fnSel.value, outcome: outSel.value, q: text.value.trim() }).filter(([, v]) => v));
      async function open(id, tr) {
        selected = id;
        for (const x of list.querySelectorAll('tr.selected')) x.classList.remove('selected');
        if (tr) tr.classList.add('selected');
        history.replaceState(null, '', UI.href('functions', '', Object.assign(params(), { id })));
        try { const inv = await UI.get(UI.projectPath('/functions/invocations/' + UI.enc(id))); if (ctx.alive && selected === id) side.replaceChildren(detail(inv, () => load(true))); } catch (e) { side.replaceChildren(UI.errorBox(e)); }
      }
      async function load(force) {
        const r = await UI.get(UI.projectPath('/functions/logs'));
        if (!ctx.alive) return;
        const all = r.invocations.slice().reverse();
        const key = all.length + ':' + (all[0] ? all[0].id + all[0].outcome : '') + JSON.stringify(params());
        if (!force && key === lastKey) return;
        lastKey = key;
        const needle = text.value.trim().toLowerCase();
        const rows = all.filter((i) => (!fnSel.value || i.function === fnSel.value) && (!outSel.value || i.outcome === outSel.value) &&
          (!needle || [i.function, i.trigger, i.error || '', i.eventId || ''].concat(i.logs).join('\n').toLowerCase().includes(needle)));
        count.textContent = rows.length + ' of ' + all.length + ' invocations (the newest 1,000 are kept), newest first';
        list.replaceChildren(rows.length ? UI.table([
          { title: 'Started', cell: (i) => UI.time(i.startTime), class: 'nowrap' },
          { title: 'Function', cell: (i) => i.function },
          { title: 'Trigger', cell: (i) => i.trigger, class: 'hide-mid' },
          { title: 'Outcome', cell: (i) => UI.badge(i.outcome) },
          { title: 'Attempt', cell: (i) => String(i.attempt) },
          { title: 'Duration', cell: (i) => i.durationMs.toFixed(1) + ' ms', class: 'hide-narrow nowrap' },
          { title: 'Log', cell: (i) => h('span', { title: i.logs.join('\n') || i.error || '', text: i.logs[0] || i.error || '' }), class: 'log' },
        ], rows, (i, tr) => open(i.id, tr), { label: 'Invocations', key: (i) => i.id }) : h('div.empty', { text: 'No invocations match.' }));
        if (selected) { const tr = list.querySelector('tr[data-key="' + CSS.escape(selected) + '"]'); if (tr) tr.classList.add('selected'); }
      }
      const refilter = () => { history.replaceState(null, '', UI.href('functions', '', params())); load(true); };
      fnSel.addEventListener('change', refilter);
      outSel.addEventListener('change', refilter);
      text.addEventListener('input', UI.debounce(refilter, 250));
      await load(true);
      if (selected) open(selected, list.querySelector('tr[data-key="' + CSS.escape(selected) + '"]'));
      ctx.onStop(UI.every(1500, async () => { if (live.checked) await load(false); }));
    },
  };
})();