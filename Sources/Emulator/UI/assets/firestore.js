'use strict';
// Firestore: collections with counts, documents a page at a time (never a whole collection),
// typed fields with per-type editors, whole documents as JSON, subtree deletes, queries with
// their cost, named databases, and live updates of the open page (UI.watchProject).
(function () {
  const h = UI.h;
  const V = UI.values;
  const PAGE = 50;
  const OPS = [['==', 'EQUAL'], ['!=', 'NOT_EQUAL'], ['<', 'LESS_THAN'], ['<=', 'LESS_THAN_OR_EQUAL'], ['>', 'GREATER_THAN'], ['>=', 'GREATER_THAN_OR_EQUAL'],
    ['array-contains', 'ARRAY_CONTAINS'], ['in', 'IN'], ['not-in', 'NOT_IN'], ['array-contains-any', 'ARRAY_CONTAINS_ANY']];

  function rest(db) { return '/v1/projects/' + UI.enc(UI.state.project) + '/databases/' + UI.enc(db) + '/documents'; }
  function browse(db) { return UI.projectPath('/databases/' + UI.enc(db) + '/documents'); }
  const idOf = (name) => name.split('/').pop();

  /** Plain JSON or typed fields from the JSON dialog's text. */
  function fieldsFrom(text, mode) {
    const o = UI.parseJSON(text || '{}', 'The document');
    if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('A document is a JSON object of fields.');
    return mode === 'plain' ? V.typedFields(o) : o;
  }

  /** The JSON editor dialog: typed (exact, every type) or plain JSON; calls save(fields). */
  function jsonDialog(title, fields, save, submitText) {
    const mode = h('select', { 'aria-label': 'JSON form' }, h('option', { value: 'typed', text: 'Typed JSON (exact: {"name": {"stringValue": …}})' }),
      h('option', { value: 'plain', text: 'Plain JSON (numbers, strings, booleans, null, arrays, objects)' }));
    const area = h('textarea', { 'aria-label': 'Document JSON', rows: 16, spellcheck: 'false' });
    area.value = UI.json(fields || {});
    let current = 'typed';
    mode.addEventListener('change', () => {
      try {
        const f = fieldsFrom(area.value, current);
        area.value = UI.json(mode.value === 'plain' ? V.plainFields(f) : f);
        current = mode.value;
      } catch (e) { mode.value = current; UI.toast(e.message, true); }
    });
    UI.dialog(title, [h('label.field', {}, 'Form', mode), h('label.field', {}, 'Fields', area)], () => save(fieldsFrom(area.value, current)), submitText || 'Save');
  }

  function fieldDialog(docPath, db, name, value, done) {
    const [nameLabel, nameInput] = UI.input('Field name', { value: name || '', required: true });
    if (name) nameInput.readOnly = true;
    const editor = V.editor(value);
    UI.dialog(name ? 'Edit field ' + name : 'Add field', [nameLabel, editor.element], async () => {
      const n = nameInput.value;
      if (!n) throw new Error('A field needs a name.');
      const v = editor.read();
      await UI.api('PATCH', rest(db) + '/' + UI.encPath(docPath) + '?updateMask.fieldPaths=' + UI.enc(V.fieldPath(n)), { fields: { [n]: v } });
      UI.toast('Saved ' + n);
      done();
    });
  }

  function addDocumentDialog(collPath, db, done, askCollection) {
    const [collLabel, collInput] = UI.input('Collection id', { required: true });
    const [idLabel, idInput] = UI.input('Document id (empty = generated)', {});
    const area = h('textarea', { 'aria-label': 'Fields (plain JSON)', rows: 8 });
    area.value = '{\n  \n}';
    UI.dialog(askCollection ? 'Start a collection' : 'Add a document to ' + collPath, [askCollection ? collLabel : null, idLabel, h('label.field', {}, 'Fields (plain JSON; use Edit as JSON later for exact types)', area)], async () => {
      const coll = askCollection ? (collPath ? collPath + '/' : '') + collInput.value.trim() : collPath;
      if (askCollection && !collInput.value.trim()) throw new Error('A collection needs an id.');
      const q = idInput.value.trim() ? '?documentId=' + UI.enc(idInput.value.trim()) : '';
      const doc = await UI.api('POST', rest(db) + '/' + UI.encPath(coll) + q, { fields: fieldsFrom(area.value, 'plain') });
      UI.toast('Created ' + idOf(doc.name));
      done(coll + '/' + idOf(doc.name));
    }, 'Create');
  }

  async function deleteSubtree(path, db, what, done) {
    if (!await UI.confirm('Delete ' + what, 'Delete ' + path + ' and everything below it? Triggers run for each document.', 'Delete all')) return;
    await UI.api('DELETE', browse(db) + '/' + UI.encPath(path));
    UI.toast('Deleted ' + path);
    done();
  }

  function crumbs(path, db) {
    const segs = path ? path.split('/') : [];
    const out = [UI.link('firestore', '', { database: db }, db === '(default)' ? '(default)' : db)];
    segs.forEach((s, i) => { out.push(h('span.muted', { text: '/' })); out.push(UI.link('firestore', segs.slice(0, i + 1).join('/'), { database: db }, s)); });
    return h('nav.crumbs', { 'aria-label': 'Path' }, out);
  }

  function pane(title, buttons, body, label) {
    return h('section.pane', { 'aria-label': label || title }, h('div.pane-head', {}, h('h2', { text: title }), buttons), body);
  }

  UI.pages.firestore = {
    title: 'Firestore',
    async render(ctx) {
      const db = ctx.loc.query.get('database') || '(default)';
      UI.state.database = db;
      const path = ctx.loc.rest.replace(/^\/+|\/+$/g, '');
      const segs = path ? path.split('/') : [];
      const isDoc = segs.length > 0 && segs.length % 2 === 0;
      const collPath = segs.length ? (isDoc ? segs.slice(0, -1) : segs).join('/') : '';
      const parentDoc = collPath ? collPath.split('/').slice(0, -1).join('/') : '';
      const docPath = isDoc ? path : '';
      const goto = (p) => UI.navigate(UI.href('firestore', p, { database: db }));

      const dbs = await UI.get(UI.projectPath('/databases'));
      if (!ctx.alive) return;
      const dbPicker = h('select', { 'aria-label': 'Database' }, dbs.databases.map((d) => h('option', { value: d, text: d, selected: d === db })));
      dbPicker.addEventListener('change', () => UI.navigate(UI.href('firestore', '', { database: dbPicker.value })));
      const colsBody = h('div.pane-body'), docsBody = h('div.pane-body'), docBody = h('div.pane-body.pad');
      const docsTitle = h('span');
      const queryPanel = h('div');
      ctx.main.append(h('h1', { text: 'Firestore' }),
        h('div.toolbar', {}, h('label.picker', {}, 'Database', dbPicker), crumbs(path, db),
          h('span.grow'),
          h('button.danger', { type: 'button', text: 'Clear all data', onclick: async () => {
            if (!await UI.confirm('Clear all data', 'Delete every document of ' + db + ' in ' + UI.state.project + '?', 'Delete all')) return;
            await UI.api('DELETE', browse(db));
            UI.toast('Cleared ' + db);
            goto('');
          } })),
        h('div.panes', {},
          pane(parentDoc ? 'Collections of ' + parentDoc : 'Collections', h('button', { type: 'button', text: '+ Collection', onclick: () => addDocumentDialog(parentDoc, db, goto, true) }), colsBody),
          collPath ? pane(collPath, [
            h('button', { type: 'button', text: 'Query…', 'aria-expanded': 'false', onclick: (ev) => toggleQuery(ev.target) }),
            h('button', { type: 'button', text: '+ Document', onclick: () => addDocumentDialog(collPath, db, goto) }),
            h('button.danger', { type: 'button', text: 'Delete', title: 'Delete the collection and everything below it', onclick: () => deleteSubtree(collPath, db, 'collection', () => goto(parentDoc)) }),
          ], h('div', {}, docsTitle, queryPanel, docsBody), 'Documents of ' + collPath)
            : pane('Documents', null, h('div.empty', { text: 'Choose a collection.' })),
          isDoc ? pane(segs[segs.length - 1], null, docBody, 'Document ' + docPath) : pane('Document', null, h('div.empty', { text: collPath ? 'Choose a document.' : '' }))));

      // Collections of the parent (root or document).
      async function loadCollections() {
        const r = await UI.get(browse(db) + (parentDoc ? '/' + UI.encPath(parentDoc) : ''));
        if (!ctx.alive) return;
        const list = r.collections || [];
        colsBody.replaceChildren(list.length ? h('ul.list', {}, list.map((c) => h('li', { class: c.path === collPath ? 'selected' : null },
          UI.link('firestore', c.path, { database: db }, null, { 'aria-current': c.path === collPath ? 'page' : null }),
        ))) : h('div.empty', { text: 'No collections yet.' }));
        colsBody.querySelectorAll('li > a').forEach((a, i) => a.append(h('span.id', { text: list[i].id }), h('span.badge.info', { text: UI.num(list[i].count) })));
      }

      // Documents of the collection, a page at a time.
      let loaded = 0, nextToken = null, queryOn = false;
      function docItem(d, field) {
        const p = d.path || (collPath + '/' + idOf(d.name));
        const a = UI.link('firestore', p, { database: db }, null, { 'aria-current': p === docPath ? 'page' : null });
        a.append(h('span.id', { text: idOf(p) }), h('span.preview', { text: d.fields ? V.docPreview(d, field) : '' }));
        return h('li', { class: p === docPath ? 'selected' : null }, a);
      }
      async function loadDocuments(append) {
        const size = append ? PAGE : Math.max(PAGE, Math.min(1000, loaded || PAGE));
        const q = '?pageSize=' + size + (append && nextToken ? '&pageToken=' + UI.enc(nextToken) : '');
        const r = await UI.get(browse(db) + '/' + UI.encPath(collPath) + q);
        if (!ctx.alive || queryOn) return;
        nextToken = r.nextPageToken || null;
        loaded = (append ? loaded : 0) + r.documents.length;
        docsTitle.replaceChildren(h('div.muted.small.more', { text: UI.num(r.total) + ' documents' + (r.total > loaded ? ' · showing ' + UI.num(loaded) + ' in name order' : '') }));
        let ul = docsBody.querySelector('ul.list');
        if (!append || !ul) {
          ul = h('ul.list', { 'aria-label': 'Documents' });
          docsBody.replaceChildren(ul);
          for (const m of r.missing || []) ul.append(h('li', {}, h('a', { href: UI.href('firestore', collPath + '/' + m, { database: db }), 'data-nav': true, class: 'missing', title: 'No document here, but it has subcollections' }, h('span.id', { text: m + ' (missing)' }))));
        }
        for (const d of r.documents) ul.append(docItem(Object.assign({ path: collPath + '/' + idOf(d.name) }, d)));
        if (!r.documents.length && !(r.missing || []).length) docsBody.replaceChildren(h('div.empty', { text: 'No documents.' }));
        const more = docsBody.querySelector('.more');
        if (more) more.remove();
        if (nextToken) docsBody.append(h('div.more', {}, h('button', { type: 'button', text: 'Load ' + PAGE + ' more', onclick: (ev) => UI.act(ev.target, () => loadDocuments(true)) })));
      }

      function toggleQuery(button) {
        if (queryPanel.firstChild) { queryPanel.replaceChildren(); button.setAttribute('aria-expanded', 'false'); queryOn = false; loadDocuments(false); return; }
        button.setAttribute('aria-expanded', 'true');
        const conds = h('div');
        const addCond = () => {
          const f = h('input', { placeholder: 'field', 'aria-label': 'Field', size: 10 });
          const op = h('select', { 'aria-label': 'Operator' }, OPS.map(([t, v]) => h('option', { value: v, text: t })));
          const val = h('input', { placeholder: 'value (JSON, e.g. "x", 3, true)', 'aria-label': 'Value', size: 14 });
          const row = h('div.row', {}, f, op, val, h('button.ghost', { type: 'button', text: '✕', 'aria-label': 'Remove condition', onclick: () => row.remove() }));
          conds.append(row);
          f.focus();
        };
        const order = h('input', { placeholder: 'order by field', 'aria-label': 'Order by', size: 10 });
        const dir = h('select', { 'aria-label': 'Direction' }, h('option', { value: 'ASCENDING', text: 'ascending' }), h('option', { value: 'DESCENDING', text: 'descending' }));
        const limit = h('input', { type: 'number', min: '1', max: '1000', value: '50', 'aria-label': 'Limit', style: 'width: 6em' });
        const cost = h('p.muted.small', { 'aria-live': 'polite' });
        const run = async () => {
          const filters = [...conds.children].map((row) => {
            const [f, op, val] = row.querySelectorAll('input, select');
            if (!f.value.trim()) throw new Error('Every condition needs a field.');
            let x; try { x = JSON.parse(val.value); } catch (e) { x = val.value; }
            return { fieldFilter: { field: { fieldPath: f.value.trim() }, op: op.value, value: V.typed(x) } };
          });
          const sq = { from: [{ collectionId: collPath.split('/').pop() }], limit: Math.max(1, Math.min(1000, Number(limit.value) || 50)) };
          if (filters.length === 1) sq.where = filters[0];
          if (filters.length > 1) sq.where = { compositeFilter: { op: 'AND', filters } };
          if (order.value.trim()) sq.orderBy = [{ field: { fieldPath: order.value.trim() }, direction: dir.value }];
          const t0 = performance.now();
          const r = await UI.api('POST', rest(db) + (parentDoc ? '/' + UI.encPath(parentDoc) : '') + ':runQuery', { structuredQuery: sq });
          const ms = performance.now() - t0;
          const docs = r.filter((e) => e.document).map((e) => e.document);
          queryOn = true;
          const field = filters.length ? filters[0].fieldFilter.field.fieldPath : order.value.trim();
          cost.textContent = docs.length + ' documents · ' + Math.max(1, docs.length) + ' reads billed (one per document returned, at least one per query) · ' + ms.toFixed(1) + ' ms';
          docsBody.replaceChildren(docs.length ? h('ul.list', { 'aria-label': 'Query results' }, docs.map((d) => docItem(Object.assign({ path: collPath + '/' + idOf(d.name) }, d), field))) : h('div.empty', { text: 'No documents match.' }));
          docsTitle.replaceChildren(h('div.muted.small.more', { text: 'Query results' }));
        };
        queryPanel.replaceChildren(h('div.card', { 'aria-label': 'Query' }, conds,
          h('div.row', {}, h('button', { type: 'button', text: '+ Condition', onclick: addCond }), order, dir, h('label.picker', {}, 'limit', limit)),
          h('div.row', {}, h('button.primary', { type: 'button', text: 'Run query', onclick: (ev) => UI.act(ev.target, run) }),
            h('button', { type: 'button', text: 'Show all', onclick: () => { queryOn = false; cost.textContent = ''; loadDocuments(false); } })), cost));
        addCond();
      }

      // The open document: typed fields, editors, subcollections.
      async function loadDocument() {
        const r = await UI.get(browse(db) + '/' + UI.encPath(docPath));
        if (!ctx.alive) return;
        const doc = r.document;
        const reload = () => refresh();
        const subs = h('div', {}, h('h3', { text: 'Subcollections' }),
          r.collections.length ? h('ul.list', {}, r.collections.map((c) => h('li', {}, UI.link('firestore', c.path, { database: db }, c.id + ' (' + UI.num(c.count) + ')'))))
            : h('p.muted', { text: 'None.' }),
          h('button', { type: 'button', text: '+ Subcollection', onclick: () => addDocumentDialog(docPath, db, goto, true) }));
        if (!doc) {
          docBody.replaceChildren(h('div.notice.warn', { text: 'No document at ' + docPath + (r.collections.length ? ': only its subcollections exist.' : '.') }),
            h('div.row', {}, h('button.primary', { type: 'button', text: 'Create it', onclick: () => jsonDialog('Create ' + docPath, {}, async (fields) => {
              await UI.api('PATCH', rest(db) + '/' + UI.encPath(docPath), { fields });
              UI.toast('Created ' + docPath);
              reload();
            }, 'Create') })), subs);
          return;
        }
        const names = Object.keys(doc.fields || {}).sort();
        const rows = names.map((n) => {
          const v = doc.fields[n];
          return h('tr', { dataset: { field: n } }, h('td.name', { text: n }), h('td.type', { text: V.typeOf(v) }), h('td.value', {}, V.render(v)),
            h('td.actions', {}, h('button.ghost', { type: 'button', text: 'Edit', 'aria-label': 'Edit field ' + n, onclick: () => fieldDialog(docPath, db, n, v, reload) }),
              h('button.ghost', { type: 'button', text: 'Delete', 'aria-label': 'Delete field ' + n, onclick: async () => {
                if (!await UI.confirm('Delete field', 'Delete field ' + n + ' of ' + docPath + '?')) return;
                await UI.api('PATCH', rest(db) + '/' + UI.encPath(docPath) + '?updateMask.fieldPaths=' + UI.enc(V.fieldPath(n)), { fields: {} });
                UI.toast('Deleted field ' + n);
                reload();
              } })));
        });
        docBody.replaceChildren(
          h('div.row', {},
            h('button', { type: 'button', text: '+ Field', onclick: () => fieldDialog(docPath, db, '', null, reload) }),
            h('button', { type: 'button', text: 'Edit as JSON', onclick: () => jsonDialog('Edit ' + docPath, doc.fields || {}, async (fields) => {
              await UI.api('PATCH', rest(db) + '/' + UI.encPath(docPath), { fields });
              UI.toast('Saved ' + docPath);
              reload();
            }) }),
            h('button.danger', { type: 'button', text: 'Delete', onclick: async () => {
              if (!await UI.confirm('Delete document', 'Delete ' + docPath + '? Its subcollections stay.')) return;
              await UI.api('DELETE', rest(db) + '/' + UI.encPath(docPath));
              UI.toast('Deleted ' + docPath);
              goto(collPath);
            } }),
            h('button.danger', { type: 'button', text: 'Delete with subcollections', onclick: () => deleteSubtree(docPath, db, 'document and subcollections', () => goto(collPath)) })),
          h('p.muted.small', { text: 'Created ' + UI.time(doc.createTime) + ' · updated ' + UI.time(doc.updateTime) }),
          names.length ? h('table.fields', { 'aria-label': 'Fields' }, h('tbody', {}, rows)) : h('p.muted', { text: 'No fields.' }),
          subs);
      }

      async function refresh() {
        const jobs = [loadCollections()];
        if (collPath && !queryOn) jobs.push(loadDocuments(false));
        if (isDoc) jobs.push(loadDocument());
        await Promise.all(jobs);
      }
      await refresh();
      ctx.onStop(UI.watchProject(UI.state.project, () => { if (ctx.alive) refresh().catch(() => {}); }));
    },
  };
})();