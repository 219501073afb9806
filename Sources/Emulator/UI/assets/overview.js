'use strict';
// Overview: services and ports, the project, version and uptime, counts, and how to connect.
(function () {
  const h = UI.h;

  function uptime(ms) {
    const s = Math.floor(ms / 1000), d = Math.floor(s / 86400), hh = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
    return (d ? d + 'd ' : '') + (d || hh ? hh + 'h ' : '') + m + 'm ' + (s % 60) + 's';
  }

  function hostPort(a) {
    const host = a.host === '0.0.0.0' ? '127.0.0.1' : a.host === '::' ? '::1' : a.host;
    return (host.includes(':') ? '[' + host + ']' : host) + ':' + a.port;
  }

  // The indexes production will need that the index file lacks (docs/indexes.md), as a ready
  // firestore.indexes.json fragment; the (default) database's queries.
  function indexCard(card, stat, file) {
    if (!file) return card('Indexes', h('p.muted', { text: 'Index suggestions are not available.' }));
    const missing = (file.indexes || []).length + (file.fieldOverrides || []).length;
    if (!missing) {
      return card('Indexes', h('p.muted', { text: 'No missing indexes: every query so far is served by the index file or the automatic single-field indexes.' }));
    }
    return card('Indexes', h('div', {},
      h('div.row', {}, stat('indexes production will need', UI.num(missing))),
      h('p.muted.small', { text: 'Queries seen here need these in firestore.indexes.json (production refuses them without; --strict-indexes refuses them here too):' }),
      UI.copyBlock(JSON.stringify(file, null, 2), 'suggested indexes')));
  }

  UI.pages.overview = {
    title: 'Overview',
    async render(ctx) {
      const p = UI.state.project;
      const [status, summary, indexes, buckets, pubsub] = await Promise.all([UI.get('/emulator/v1/status'), UI.get(UI.projectPath('/summary')),
        UI.get(UI.projectPath('/databases/' + UI.enc('(default)') + '/indexes:suggested?missingOnly=true')).catch(() => null),
        UI.get(UI.projectPath('/storage/buckets')).catch(() => ({ buckets: [] })), UI.get(UI.projectPath('/pubsub')).catch(() => ({ topics: [], subscriptions: [] }))]);
      if (!ctx.alive) return;
      const services = status.services || {};
      const order = ['hub', 'auth', 'firestore', 'storage', 'pubsub', 'functions'].filter((n) => services[n]);
      const hp = (n) => hostPort(services[n] || services.hub || { host: location.hostname, port: location.port });
      const card = (title, body) => h('section.card', { 'aria-label': title }, h('h2', { text: title }), body);
      const stat = (label, value, href) => h('div', {}, h('div.stat', {}, href ? h('a', { href, 'data-nav': true, text: value }) : value), h('div.muted', { text: label }));
      const env = 'export FIREBASE_AUTH_EMULATOR_HOST=' + hp('auth') + '\nexport FIRESTORE_EMULATOR_HOST=' + hp('firestore') +
        '\nexport FIREBASE_EMULATOR_HUB=' + hp('hub') + '\nexport GCLOUD_PROJECT=' + p;
      const web = 'connectAuthEmulator(auth, "http://' + hp('auth') + '");\nconnectFirestoreEmulator(db, "' + services.firestore.host + '", ' +
        services.firestore.port + ');  // full SDK (WebChannel: streaming or long polling) and Lite SDK (REST)\nconnectFunctionsEmulator(functions, "' + services.functions.host + '", ' + services.functions.port + ');';
      ctx.main.append(
        h('h1', { text: 'Overview' }),
        h('div.cards', {},
          card('Emulator', UI.kv([['Project', p], ['Default project', status.project], ['Version', status.version], ['Up for', uptime(status.uptimeMs)],
            ['Rules', summary.rules.mode === 'open' ? 'open development default (everything allowed)' : summary.rules.fileName + ' (' + summary.rules.mode + ')'],
            ['Clock', summary.clock.mode + ' · ' + UI.time(summary.clock.time)]])),
          card('Services', h('table', { 'aria-label': 'Services' }, h('tbody', {}, order.map((n) =>
            h('tr', {}, h('td', { text: n }), h('td.mono', { text: hp(n) }))))))),
        h('div.cards', {},
          card('Firestore', h('div.row', {}, stat('documents', UI.num(summary.documents), UI.href('firestore')),
            stat('databases', UI.num(Math.max(1, summary.databases.length))))),
          card('Auth', h('div.row', {}, stat('users', UI.num(summary.users.total), UI.href('auth')),
            stat('anonymous', UI.num(summary.users.anonymous)), stat('disabled', UI.num(summary.users.disabled)))),
          card('Storage', h('div.row', {}, stat('objects', UI.num(buckets.buckets.reduce((n, b) => n + b.objects, 0)), UI.href('storage')),
            stat('buckets', UI.num(buckets.buckets.length)))),
          card('Pub/Sub', h('div.row', {}, stat('topics', UI.num(pubsub.topics.length), UI.href('pubsub')), stat('subscriptions', UI.num(pubsub.subscriptions.length)),
            stat('backlog', UI.num(pubsub.subscriptions.reduce((n, x) => n + x.backlog.messages, 0))))),
          card('Requests', h('div.row', {}, stat('rules evaluations kept', UI.num(summary.rulesEvaluations), UI.href('requests')))),
          card('Functions', h('div.row', {}, stat('functions', UI.num(summary.functions), UI.href('functions')), stat('invocations', UI.num(summary.invocations)))),
          card('Control', h('div.row', {}, stat('snapshots', UI.num(summary.snapshots), UI.href('control')), stat('faults', UI.num(summary.faults))))),
        indexCard(card, stat, indexes),
        card('Connect', h('div', {},
          h('h3', { text: 'Run a command against this emulator' }),
          UI.copyBlock('emulator exec --project ' + p + ' -- npm test', 'exec command'),
          h('h3', { text: 'Environment for Admin SDKs and tools' }),
          UI.copyBlock(env, 'environment'),
          h('h3', { text: 'Web SDK' }),
          UI.copyBlock(web, 'web SDK settings'),
          h('p.muted.small', {}, 'Every port serves every API. The control plane is described at ',
            h('a', { href: '/emulator/v1/openapi.json', text: '/emulator/v1/openapi.json' }), '.'))));
      // Counts follow the data (documents and Storage objects).
      ctx.onStop(UI.watchProject(p, () => { if (ctx.alive) UI.render(); }, (e) => e.event === 'change' || e.event === 'storage'));
    },
  };
})();