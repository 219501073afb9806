'use strict';
// Pub/Sub: the project's topics, subscriptions with their backlogs and settings, publishing a
// message (data, attributes, ordering key) over the Pub/Sub REST API like any client, and a
// topic's recent messages (the newest 100, kept by the emulator whatever was acknowledged).
(function () {
  const h = UI.h;

  const rest = (suffix) => '/v1/projects/' + UI.enc(UI.state.project) + suffix;
  const idOf = (name) => String(name || '').split('/').pop();

  /** Standard base64 of the UTF-8 bytes of `text`. */
  function encode(text) {
    const bytes = new TextEncoder().encode(text);
    let bin = '';
    for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    return btoa(bin);
  }

  /** A message's data as text when it is UTF-8, else as base64 (marked). */
  function decode(data) {
    if (!data) return { text: '', binary: false };
    try {
      const bin = atob(data);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), binary: false };
    } catch (e) { return { text: data, binary: true }; }
  }

  /** "key = value" lines into an object. */
  function attributesFrom(text) {
    const out = {};
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const cut = line.indexOf('=');
      if (cut <= 0) throw new Error('Attribute lines read "key = value": ' + line.trim());
      out[line.slice(0, cut).trim()] = line.slice(cut + 1).trim();
    }
    return out;
  }

  function settings(sub) {
    const r = sub.subscription || {};
    const out = [];
    out.push('ack ' + (r.ackDeadlineSeconds || 10) + ' s');
    if (r.pushConfig && r.pushConfig.pushEndpoint) out.push('push ' + r.pushConfig.pushEndpoint);
    if (r.filter) out.push('filter ' + r.filter);
    if (r.enableMessageOrdering) out.push('ordered');
    if (r.deadLetterPolicy && r.deadLetterPolicy.deadLetterTopic) out.push('dead letters → ' + idOf(r.deadLetterPolicy.deadLetterTopic) + ' after ' + (r.deadLetterPolicy.maxDeliveryAttempts || 5));
    if (r.retainAckedMessages) out.push('retains acked');
    if (r.messageRetentionDuration) out.push('retention ' + r.messageRetentionDuration);
    return out.join(' · ');
  }

  function publishForm(topic, published) {
    const data = h('textarea', { 'aria-label': 'Message data', rows: 4, spellcheck: 'false', placeholder: '{"hello": "world"}' });
    const attrs = h('textarea', { 'aria-label': 'Attributes', rows: 3, spellcheck: 'false', placeholder: 'key = value' });
    const [keyLabel, key] = UI.input('Ordering key', { 'aria-label': 'Ordering key' });
    const submit = h('button.primary', { type: 'submit', text: 'Publish' });
    const form = h('form.publish', { 'aria-label': 'Publish to ' + idOf(topic) },
      h('label.field', {}, 'Data (text, sent as UTF-8)', data), h('label.field', {}, 'Attributes (one "key = value" a line)', attrs), keyLabel,
      h('div.row.end', {}, submit));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      UI.act(submit, async () => {
        const message = { data: encode(data.value), attributes: attributesFrom(attrs.value) };
        if (key.value.trim()) message.orderingKey = key.value.trim();
        const r = await UI.api('POST', rest('/topics/' + UI.enc(idOf(topic)) + ':publish'), { messages: [message] });
        UI.toast('Published message ' + r.messageIds[0] + ' to ' + idOf(topic));
        data.value = '';
        await published();
      });
    });
    return form;
  }

  function createTopicDialog(done) {
    const [label, input] = UI.input('Topic id', { required: true, pattern: '[A-Za-z][A-Za-z0-9._~+%-]{2,254}' });
    UI.dialog('Create a topic', [label], async () => {
      await UI.api('PUT', rest('/topics/' + UI.enc(input.value.trim())), {});
      UI.toast('Created topic ' + input.value.trim());
      done(input.value.trim());
    }, 'Create');
  }

  UI.pages.pubsub = {
    title: 'Pub/Sub',
    async render(ctx) {
      const full = (id) => (id ? 'projects/' + UI.state.project + '/topics/' + id : null);
      let topic = full(ctx.loc.query.get('topic'));
      const topicsBox = h('div'), subsBox = h('div'), topicBox = h('div'), recentBox = h('div');
      const live = h('input', { type: 'checkbox', checked: true });
      ctx.main.append(h('h1', { text: 'Pub/Sub' }),
        h('div.toolbar', {}, h('button', { type: 'button', text: 'Create topic', onclick: () => createTopicDialog((id) => select(full(id))) }),
          h('label.check', {}, live, 'Live')),
        h('div.split', {},
          h('div', {}, h('section.card', { 'aria-label': 'Topics' }, h('h2', { text: 'Topics' }), topicsBox),
            h('section.card', { 'aria-label': 'Subscriptions' }, h('h2', { text: 'Subscriptions' }), subsBox), recentBox),
          h('div', {}, topicBox)));

      let lastOverview = null, lastRecent = null;
      async function loadOverview(force) {
        const r = await UI.get(UI.projectPath('/pubsub'));
        if (!ctx.alive) return;
        const key = JSON.stringify(r);
        if (!force && key === lastOverview) return;
        lastOverview = key;
        if (topic && !r.topics.some((t) => t.name === topic)) { topic = null; renderTopic(); recentBox.replaceChildren(); }
        topicsBox.replaceChildren(r.topics.length ? UI.table([
          { title: 'Topic', cell: (t) => h('code', { text: t.id }) },
          { title: 'Subscriptions', cell: (t) => UI.num(t.subscriptions.length) },
          { title: 'Recent', cell: (t) => UI.num(t.recentMessages) },
        ], r.topics, (t) => select(t.name), { label: 'Topics', key: (t) => t.name })
          : h('p.muted', { text: 'No topics. Create one here, with a client, or by registering a function with a Pub/Sub trigger.' }));
        for (const tr of topicsBox.querySelectorAll('tr[data-key]')) tr.classList.toggle('selected', tr.dataset.key === topic);
        subsBox.replaceChildren(r.subscriptions.length ? UI.table([
          { title: 'Subscription', cell: (s) => h('code', { text: s.id }) },
          { title: 'Topic', cell: (s) => (s.detached ? UI.badge('detached', 'error') : idOf(s.topic)) },
          { title: 'Backlog', cell: (s) => h('span', { title: s.backlog.oldestUnackedPublishTime ? 'oldest ' + UI.time(s.backlog.oldestUnackedPublishTime) : '', text: UI.num(s.backlog.messages) }), class: 'nowrap' },
          { title: 'Bytes', cell: (s) => UI.num(s.backlog.bytes), class: 'hide-narrow' },
          { title: 'Settings', cell: (s) => h('details', {}, h('summary', { text: settings(s) }), h('pre', { text: UI.json(s.subscription) })) },
        ], r.subscriptions, null, { label: 'Subscriptions', key: (s) => s.name })
          : h('p.muted', { text: 'No subscriptions.' }));
      }
      async function loadRecent(force) {
        if (!topic) { recentBox.replaceChildren(); lastRecent = null; return; }
        const r = await UI.get(UI.projectPath('/pubsub/topics/' + UI.enc(idOf(topic)) + '/messages'));
        if (!ctx.alive) return;
        const key = JSON.stringify(r);
        if (!force && key === lastRecent) return;
        lastRecent = key;
        recentBox.replaceChildren(h('section.card', { 'aria-label': 'Recent messages' },
          h('h2', { text: 'Recent messages' }),
          h('p.muted.small', { text: r.messages.length + ' kept (the newest ' + r.limit + ' published to this topic), newest first' }),
          r.messages.length ? UI.table([
            { title: 'Published', cell: (m) => UI.time(m.publishTime), class: 'nowrap' },
            { title: 'Id', cell: (m) => h('code', { text: m.messageId }), class: 'hide-narrow' },
            { title: 'Data', cell: (m) => { const d = decode(m.data); return h('pre', { class: d.binary ? 'muted' : null, title: d.binary ? 'base64 (not UTF-8)' : null, text: d.text }); }, class: 'wrap' },
            { title: 'Attributes', cell: (m) => Object.entries(m.attributes || {}).map(([k, v]) => h('div.mono', { text: k + ' = ' + v })) },
            { title: 'Ordering key', cell: (m) => m.orderingKey || '' },
          ], r.messages, null, { label: 'Recent messages', key: (m) => m.messageId }) : h('p.muted', { text: 'Nothing published yet.' })));
      }
      function renderTopic() {
        if (!topic) { topicBox.replaceChildren(h('p.muted', { text: 'Pick a topic to publish to it and see its recent messages.' })); return; }
        topicBox.replaceChildren(h('section.card', { 'aria-label': 'Topic ' + idOf(topic) },
          h('div.row', {}, h('h2.grow', { text: idOf(topic) }), h('button.danger', { type: 'button', text: 'Delete topic', onclick: (ev) => UI.act(ev.target, async () => {
            if (!await UI.confirm('Delete topic', 'Delete ' + idOf(topic) + '? Its subscriptions stay, detached from it (they receive nothing more).')) return;
            await UI.api('DELETE', rest('/topics/' + UI.enc(idOf(topic))));
            UI.toast('Deleted ' + idOf(topic));
            select(null);
          }) })),
          h('p.muted.small.mono', { text: topic }),
          h('h3', { text: 'Publish a message' }), publishForm(topic, () => Promise.all([loadOverview(true), loadRecent(true)]))));
      }
      async function select(name) {
        topic = name;
        history.replaceState(null, '', UI.href('pubsub', '', name ? { topic: idOf(name) } : {}));
        renderTopic();
        await Promise.all([loadOverview(true), loadRecent(true)]);
      }
      await loadOverview(true);
      renderTopic();
      await loadRecent(true);
      // Backlogs change with every pull and ack, which the event stream does not carry: poll.
      ctx.onStop(UI.every(1500, async () => { if (live.checked) await Promise.all([loadOverview(false), loadRecent(false)]); }));
    },
  };
})();
