'use strict';
// Control: reset a project or everything, snapshots, the clock, faults, the seed, export and import.
(function () {
  const h = UI.h;

  UI.pages.control = {
    title: 'Control',
    async render(ctx) {
      const p = UI.state.project;
      const sections = { snapshots: h('div'), clock: h('div'), faults: h('div'), seed: h('div') };
      const card = (title, ...body) => h('section.card', { 'aria-label': title }, h('h2', { text: title }), body);
      const post = (path, body) => UI.api('POST', UI.projectPath(path), body === undefined ? {} : body);

      async function snapshots() {
        const r = await UI.get(UI.projectPath('/snapshots'));
        if (!ctx.alive) return;
        const [l, name] = UI.input('Snapshot name (letters, digits, . _ -)', { placeholder: 'before-test', pattern: '[A-Za-z0-9._-]{1,100}' });
        sections.snapshots.replaceChildren(
          r.snapshots.length ? UI.table([
            { title: 'Name', cell: (s) => h('code', { text: s.name }) },
            { title: 'Saved (project clock)', cell: (s) => UI.time(s.createTime) },
            { title: '', cell: (s) => h('div.row', {},
              h('button', { type: 'button', text: 'Restore', 'aria-label': 'Restore ' + s.name, onclick: (ev) => UI.act(ev.target, async () => {
                await post('/snapshots/' + UI.enc(s.name) + ':restore');
                UI.toast('Restored ' + s.name);
              }) }),
              h('button.danger', { type: 'button', text: 'Delete', 'aria-label': 'Delete snapshot ' + s.name, onclick: (ev) => UI.act(ev.target, async () => {
                await UI.api('DELETE', UI.projectPath('/snapshots/' + UI.enc(s.name)));
                UI.toast('Deleted snapshot ' + s.name);
                snapshots();
              }) })) }], r.snapshots, null, { label: 'Snapshots' }) : h('p.muted', { text: 'No snapshots yet.' }),
          h('form.row', { onsubmit: (ev) => { ev.preventDefault(); UI.act(ev.submitter, async () => {
            await post('/snapshots', { name: name.value.trim() });
            UI.toast('Saved snapshot ' + name.value.trim());
            snapshots();
          }); } }, l, h('button.primary', { type: 'submit', text: 'Save snapshot' })));
      }

      async function clock() {
        const c = await UI.get(UI.projectPath('/clock'));
        if (!ctx.alive) return;
        const [al, amount] = UI.input('Seconds', { type: 'number', value: '60', step: 'any' });
        const [fl, at] = UI.input('Freeze at (RFC 3339)', { value: c.time });
        const set = (body) => UI.api('PUT', UI.projectPath('/clock'), body);
        const advance = (s) => post('/clock:advance', { seconds: s }).then(() => { UI.toast('Advanced ' + s + ' s'); clock(); });
        sections.clock.replaceChildren(
          UI.kv([['Mode', c.mode], ['Now (project clock)', h('code', { text: c.time })], c.offsetSeconds ? ['Offset from system', c.offsetSeconds + ' s'] : null]),
          h('div.row', {},
            h('button', { type: 'button', text: 'Freeze now', onclick: (ev) => UI.act(ev.target, async () => { await set({ mode: 'frozen' }); clock(); }) }),
            h('button', { type: 'button', text: 'Back to system time', onclick: (ev) => UI.act(ev.target, async () => { await set({ mode: 'system' }); clock(); }) }),
            h('button', { type: 'button', text: '+1 min', onclick: (ev) => UI.act(ev.target, () => advance(60)) }),
            h('button', { type: 'button', text: '+1 h', onclick: (ev) => UI.act(ev.target, () => advance(3600)) }),
            h('button', { type: 'button', text: '+1 day', onclick: (ev) => UI.act(ev.target, () => advance(86400)) })),
          h('div.row', {}, al, h('button', { type: 'button', text: 'Advance', onclick: (ev) => UI.act(ev.target, () => advance(Number(amount.value))) }),
            fl, h('button', { type: 'button', text: 'Freeze at', onclick: (ev) => UI.act(ev.target, async () => { await set({ mode: 'frozen', time: at.value.trim() }); clock(); }) })));
      }

      async function faults() {
        const r = await UI.get(UI.projectPath('/faults'));
        if (!ctx.alive) return;
        const f = {};
        const field = (k, label, props) => { const [l, i] = UI.input(label, props); f[k] = i; return l; };
        const codes = ['UNAVAILABLE', 'ABORTED', 'PERMISSION_DENIED', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'INTERNAL', 'NOT_FOUND', 'UNAUTHENTICATED', 'INVALID_ARGUMENT', '(delay only)'];
        sections.faults.replaceChildren(
          r.faults.length ? UI.table([
            { title: 'Id', cell: (x) => h('code', { text: x.id }) },
            { title: 'Matches', cell: (x) => [x.match.service, x.match.method, x.match.path, x.match.function].filter(Boolean).join(' · ') },
            { title: 'Does', cell: (x) => (x.error ? x.error.status : 'delay') + (x.delayMs ? ' after ' + x.delayMs + ' ms' : '') + (x.probability < 1 ? ' p=' + x.probability : '') },
            { title: 'Fired', cell: (x) => String(x.fired) + (x.remaining != null ? ' (' + x.remaining + ' left)' : '') },
            { title: '', cell: (x) => h('button.danger', { type: 'button', text: 'Remove', 'aria-label': 'Remove fault ' + x.id, onclick: (ev) => UI.act(ev.target, async () => {
              await UI.api('DELETE', UI.projectPath('/faults/' + UI.enc(x.id)));
              faults();
            }) }) }], r.faults, null, { label: 'Faults' }) : h('p.muted', { text: 'No faults injected.' }),
          h('details', {}, h('summary', { text: 'Add a fault' }),
            h('form', { onsubmit: (ev) => { ev.preventDefault(); UI.act(ev.submitter, async () => {
              const match = { service: f.service.value };
              for (const k of ['method', 'path', 'function']) if (f[k].value.trim()) match[k] = f[k].value.trim();
              const body = { match };
              if (f.status.value !== '(delay only)') body.error = { status: f.status.value, message: f.message.value.trim() || undefined };
              if (f.delayMs.value) body.delayMs = Number(f.delayMs.value);
              if (f.times.value) body.times = Number(f.times.value);
              if (f.probability.value) body.probability = Number(f.probability.value);
              await post('/faults', body);
              UI.toast('Fault added');
              faults();
            }); } },
            h('div.cards', {},
              h('div', {}, field('service', 'Service', { tag: 'select', options: ['firestore', 'auth', 'functions'].map((s) => h('option', { value: s, text: s })) }),
                field('method', 'Method (commit, get, signUp, …; empty = any)', {}), field('path', 'Path glob (tasks/*, **; empty = any)', {}),
                field('function', 'Function (functions only)', {})),
              h('div', {}, field('status', 'Error', { tag: 'select', options: codes.map((s) => h('option', { value: s, text: s })) }),
                field('message', 'Message', {}), field('delayMs', 'Delay (ms)', { type: 'number', min: '0', max: '60000' }),
                field('times', 'Times (empty = unlimited)', { type: 'number', min: '1' }), field('probability', 'Probability 0..1 (empty = 1)', { type: 'number', min: '0', max: '1', step: 'any' }))),
            h('button.primary', { type: 'submit', text: 'Add fault' }))));
      }

      async function seed() {
        const r = await UI.get(UI.projectPath('/seed'));
        if (!ctx.alive) return;
        const [l, i] = UI.input('Seed (empty = random ids)', { type: 'number', min: '0', value: r.seed == null ? '' : String(r.seed) });
        sections.seed.replaceChildren(h('p.muted', { text: 'Generated ids (documents, users, codes) follow this seed, so a seeded suite replays identically.' }),
          h('form.row', { onsubmit: (ev) => { ev.preventDefault(); UI.act(ev.submitter, async () => {
            await UI.api('PUT', UI.projectPath('/seed'), { seed: i.value === '' ? null : Number(i.value) });
            UI.toast('Seed set');
            seed();
          }); } }, l, h('button', { type: 'submit', text: 'Set seed' })));
      }

      const [el, exportPath] = UI.input('Folder on the emulator\'s machine', { placeholder: 'exports/' + p, value: 'exports/' + p });
      ctx.main.append(h('h1', { text: 'Control' }),
        card('Reset', h('p.muted', { text: 'A project reset clears its documents, users, codes, queued events and logs; rules, settings, clock, seed and faults stay.' }),
          h('div.row', {},
            h('button.danger', { type: 'button', text: 'Reset ' + p, onclick: async (ev) => {
              if (!await UI.confirm('Reset project', 'Clear every document, user and log of ' + p + '?', 'Reset')) return;
              await UI.act(ev.target, async () => { await post(':reset'); UI.toast('Reset ' + p); });
            } }),
            h('button.danger', { type: 'button', text: 'Reset everything', onclick: async (ev) => {
              if (!await UI.confirm('Reset everything', 'Clear the data of every project, and every clock, seed and fault?', 'Reset everything')) return;
              await UI.act(ev.target, async () => { await UI.api('POST', '/emulator/v1/reset', {}); UI.toast('Reset every project'); UI.render(); });
            } }))),
        card('Snapshots', h('p.muted', { text: 'A snapshot keeps the project\'s whole data in memory; restoring is instant.' }), sections.snapshots),
        card('Clock', sections.clock),
        card('Faults', sections.faults),
        card('Seed', sections.seed),
        card('Export and import', h('p.muted', { text: 'Paths are on the machine the emulator runs on, relative to its working directory.' }),
          h('div.row', {}, el,
            h('button', { type: 'button', text: 'Export', onclick: (ev) => UI.act(ev.target, async () => { const r = await post(':export', { path: exportPath.value.trim() }); UI.toast('Exported to ' + r.path); }) }),
            h('button', { type: 'button', text: 'Import', onclick: async (ev) => {
              if (!await UI.confirm('Import', 'Replace the data of ' + p + ' with the export in ' + exportPath.value.trim() + '?', 'Import')) return;
              await UI.act(ev.target, async () => { await post(':import', { path: exportPath.value.trim() }); UI.toast('Imported ' + exportPath.value.trim()); });
            } }))));
      await Promise.all([snapshots(), clock(), faults(), seed()]);
    },
  };
})();