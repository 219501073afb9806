'use strict';
// Cloud Storage: buckets, folders (prefix and "/" delimiter) and objects a page at a time,
// image and text previews, upload (file picker or drag and drop), download, metadata editing,
// download tokens, deletes, and live updates of the open bucket (UI.watchProject, `storage` events).
// Listings and metadata come from the JSON API (/storage/v1), edits go through the Firebase API
// (/v0) with `Bearer owner`, as any client's would (triggers run).
(function () {
  const h = UI.h;
  const PAGE = 50;
  const PREVIEW_BYTES = 65536;
  const TOKENS = 'firebaseStorageDownloadTokens';

  const gcs = (bucket) => '/storage/v1/b/' + UI.enc(bucket) + '/o';
  const v0 = (bucket, name) => '/v0/b/' + UI.enc(bucket) + '/o' + (name == null ? '' : '/' + UI.enc(name));
  const baseName = (name) => name.replace(/\/$/, '').split('/').pop();
  const tokensOf = (o) => ((o.metadata || {})[TOKENS] || '').split(',').filter(Boolean);

  function size(n) {
    n = Number(n || 0);
    if (n < 1024) return n + ' B';
    const units = ['KiB', 'MiB', 'GiB', 'TiB'];
    let i = -1;
    do { n /= 1024; i += 1; } while (n >= 1024 && i < units.length - 1);
    return n.toFixed(n < 10 ? 1 : 0) + ' ' + units[i];
  }


  async function upload(bucket, name, file) {
    const r = await UI.send('POST', v0(bucket) + '?name=' + UI.enc(name), file, { 'Content-Type': file.type || 'application/octet-stream' });
    return r.json();
  }

  async function download(bucket, o) {
    const blob = await (await UI.send('GET', v0(bucket, o.name) + '?alt=media')).blob();
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: baseName(o.name), hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  function isText(type) {
    return /^text\//.test(type) || /(json|xml|javascript|yaml|csv|x-sh|toml)/.test(type);
  }

  /** An image (as a blob: URL the page made itself) or the first 64 KiB of a text object. */
  function preview(bucket, o, ctx) {
    const type = o.contentType || '';
    const box = h('div.preview-box', { 'aria-label': 'Preview' });
    if (/^image\//.test(type)) {
      UI.send('GET', v0(bucket, o.name) + '?alt=media').then((r) => r.blob()).then((b) => {
        if (!ctx.alive) return;
        const url = URL.createObjectURL(b);
        ctx.onStop(() => URL.revokeObjectURL(url));
        box.replaceChildren(h('img.preview', { src: url, alt: 'Preview of ' + o.name }));
      }).catch((e) => box.replaceChildren(UI.errorBox(e)));
    } else if (isText(type)) {
      UI.send('GET', v0(bucket, o.name) + '?alt=media', undefined, { Range: 'bytes=0-' + (PREVIEW_BYTES - 1) }).then((r) => r.text()).then((t) => {
        const more = Number(o.size) > PREVIEW_BYTES ? h('p.muted.small', { text: 'The first ' + size(PREVIEW_BYTES) + ' of ' + size(o.size) + '.' }) : null;
        box.replaceChildren(h('pre.text-preview', { text: t }), more);
      }).catch((e) => box.replaceChildren(UI.errorBox(e)));
    } else {
      box.append(h('p.muted', { text: 'No preview for ' + (type || 'this type') + '.' }));
    }
    return box;
  }

  /** The metadata dialog: content type, cache control and custom metadata (key = value lines). */
  function metadataDialog(bucket, o, done) {
    const [typeLabel, typeInput] = UI.input('Content type', { value: o.contentType || '' });
    const [cacheLabel, cacheInput] = UI.input('Cache control', { value: o.cacheControl || '', placeholder: 'public, max-age=3600' });
    const custom = Object.entries(o.metadata || {}).filter(([k]) => k !== TOKENS);
    const area = h('textarea', { 'aria-label': 'Custom metadata', rows: 6, spellcheck: 'false' });
    area.value = custom.map(([k, v]) => k + ' = ' + v).join('\n');
    UI.dialog('Edit metadata of ' + baseName(o.name), [typeLabel, cacheLabel, h('label.field', {}, 'Custom metadata (one "key = value" a line)', area)], async () => {
      const metadata = {};
      for (const line of area.value.split('\n')) {
        if (!line.trim()) continue;
        const cut = line.indexOf('=');
        if (cut <= 0) throw new Error('Custom metadata lines read "key = value": ' + line.trim());
        metadata[line.slice(0, cut).trim()] = line.slice(cut + 1).trim();
      }
      for (const [k] of custom) if (!(k in metadata)) metadata[k] = null;  // removed lines remove the key
      await UI.api('PATCH', v0(bucket, o.name), {
        contentType: typeInput.value.trim() || null, cacheControl: cacheInput.value.trim() || null, metadata,
      });
      UI.toast('Saved the metadata of ' + baseName(o.name));
      done();
    });
  }

  function detail(bucket, o, ctx, reload, closed) {
    const custom = Object.entries(o.metadata || {}).filter(([k]) => k !== TOKENS);
    const tokens = tokensOf(o);
    const act = (text, fn, cls) => h('button' + (cls || ''), { type: 'button', text, onclick: (ev) => UI.act(ev.target, fn) });
    const tokenRows = tokens.map((t) => {
      const url = location.origin + v0(bucket, o.name) + '?alt=media&token=' + UI.enc(t);
      return h('li.token', {}, h('a.mono', { href: url, target: '_blank', rel: 'noopener', text: t, title: 'Download URL with this token' }),
        act('Revoke', async () => {
          if (!await UI.confirm('Revoke token', 'Download URLs with token ' + t + ' stop working.', 'Revoke')) return;
          await UI.api('POST', v0(bucket, o.name) + '?delete_token=' + UI.enc(t));
          UI.toast('Revoked the token');
          reload();
        }, '.danger'));
    });
    return h('section.card', { 'aria-label': 'Object ' + o.name },
      h('div.row', {}, h('strong.grow.mono', { text: o.name }),
        act('Download', () => download(bucket, o)),
        act('Edit metadata', async () => metadataDialog(bucket, o, reload)),
        act('Delete', async () => {
          if (!await UI.confirm('Delete object', 'Delete ' + o.name + '? Storage triggers run.')) return;
          await UI.api('DELETE', v0(bucket, o.name));
          UI.toast('Deleted ' + baseName(o.name));
          closed();
        }, '.danger')),
      preview(bucket, o, ctx),
      UI.kv([['Size', size(o.size) + ' (' + UI.num(o.size) + ' bytes)'], ['Content type', o.contentType], ['Cache control', o.cacheControl],
        ['Updated', UI.time(o.updated)], ['Created', UI.time(o.timeCreated)], ['Generation', o.generation], ['Metageneration', o.metageneration],
        ['MD5', o.md5Hash], ['CRC32C', o.crc32c]]),
      h('h3', { text: 'Custom metadata' }),
      custom.length ? UI.kv(custom) : h('p.muted', { text: 'None.' }),
      h('h3', { text: 'Download tokens' }),
      tokens.length ? h('ul.tokens', { 'aria-label': 'Download tokens' }, tokenRows) : h('p.muted', { text: 'No download token: getDownloadURL() creates one.' }),
      act('Create token', async () => {
        await UI.api('POST', v0(bucket, o.name) + '?create_token=true');
        UI.toast('Created a download token');
        reload();
      }));
  }

  UI.pages.storage = {
    title: 'Storage',
    async render(ctx) {
      const segs = ctx.loc.rest ? ctx.loc.rest.split('/') : [];
      const listed = await UI.get(UI.projectPath('/storage/buckets'));
      if (!ctx.alive) return;
      const buckets = listed.buckets;
      const bucket = segs[0] || (buckets[0] && buckets[0].name);
      const prefix = segs.length > 1 ? segs.slice(1).join('/') + '/' : '';
      let selected = ctx.loc.query.get('object');
      const here = (name) => UI.href('storage', bucket + (name ? '/' + name.replace(/\/$/, '') : ''), {});

      const bucketList = h('ul.list', { 'aria-label': 'Buckets' }, buckets.map((b) => h('li', { class: b.name === bucket ? 'selected' : null },
        h('a.stack', { href: UI.href('storage', b.name, {}), 'data-nav': true, 'aria-current': b.name === bucket ? 'page' : null, title: b.name },
          h('span.id', { text: b.name }), h('span.preview', { text: UI.num(b.objects) + ' objects · ' + size(b.bytes) })))));
      const crumbs = h('nav.crumbs', { 'aria-label': 'Folder' }, UI.link('storage', bucket, {}, bucket || ''),
        prefix.split('/').filter(Boolean).map((s, i, all) => [h('span.muted', { text: '/' }), UI.link('storage', bucket + '/' + all.slice(0, i + 1).join('/'), {}, s)]));
      const fileInput = h('input', { type: 'file', multiple: true, 'aria-label': 'Files to upload' });
      const drop = h('div.dropzone', { text: 'Drop files here to upload them to ' + (prefix || 'the bucket root') });
      const body = h('div.pane-body');
      const count = h('span.muted.small', { 'aria-live': 'polite' });
      const side = h('div');
      ctx.main.append(h('h1', { text: 'Storage' }), h('div.panes', {},
        h('section.pane', { 'aria-label': 'Buckets' }, h('div.pane-head', {}, h('h2', { text: 'Buckets' })), h('div.pane-body', {}, bucketList)),
        h('section.pane', { 'aria-label': 'Objects' }, h('div.pane-head', {}, h('h2', {}, crumbs), count),
          h('div.pane-body.pad', {}, h('label.field', {}, 'Upload files', fileInput), drop), body),
        h('div', {}, side)));
      if (!bucket) { body.append(h('div.empty', { text: 'No buckets in this project.' })); return; }

      // Live refreshes re-render only what changed, and only with the newest answer: a list or an
      // object the page already shows stays as it is (no flicker after the page's own edits).
      let shown = 0, next = null, listKey = null, detailKey = null, listSeq = 0, openSeq = 0;
      function row(kind, name, extra) {
        const li = h('li', { class: name === selected ? 'selected' : null, dataset: { name } });
        if (kind === 'folder') li.append(h('a', { href: here(name), 'data-nav': true }, h('span.id', { text: baseName(name) + '/' }), h('span.preview', { text: 'folder' })));
        else li.append(h('button.item', { type: 'button', onclick: () => open(name) }, h('span.id', { text: baseName(name) }), h('span.preview', { text: extra })));
        return li;
      }
      async function load(reset) {
        const want = reset ? Math.min(1000, Math.max(PAGE, shown)) : PAGE;
        const q = new URLSearchParams({ prefix, delimiter: '/', maxResults: String(want) });
        if (!reset && next) q.set('pageToken', next);
        const seq = ++listSeq;
        const r = await UI.get(gcs(bucket) + '?' + q.toString());
        if (!ctx.alive || seq !== listSeq) return;
        if (reset) {
          const key = JSON.stringify(r);
          if (key === listKey) return;
          listKey = key;
        }
        const list = reset ? h('ul.list', { 'aria-label': 'Objects in ' + (prefix || bucket) }) : body.querySelector('ul.list');
        if (reset) { shown = 0; body.replaceChildren(list); }
        for (const p of r.prefixes || []) list.append(row('folder', p));
        for (const o of r.items || []) list.append(row('object', o.name, size(o.size) + ' · ' + (o.contentType || '')));
        shown += (r.items || []).length + (r.prefixes || []).length;
        next = r.nextPageToken || null;
        const old = body.querySelector('.more');
        if (old) old.remove();
        if (next) body.append(h('div.more', {}, h('button', { type: 'button', text: 'Load more', onclick: (ev) => UI.act(ev.target, () => load(false)) })));
        if (!shown) list.append(h('li.empty', { text: prefix ? 'This folder is empty.' : 'This bucket is empty.' }));
        count.textContent = UI.num(shown) + (next ? '+' : '') + ' shown';
      }
      async function open(name, keep) {
        selected = name;
        history.replaceState(null, '', UI.href('storage', ctx.loc.rest || bucket, { object: name }));
        for (const li of body.querySelectorAll('li')) li.classList.toggle('selected', li.dataset.name === name);
        const seq = ++openSeq;
        try {
          const o = await UI.get(gcs(bucket) + '/' + UI.enc(name));
          if (!ctx.alive || selected !== name || seq !== openSeq) return;
          const key = JSON.stringify(o);
          if (keep && key === detailKey) return;
          detailKey = key;
          side.replaceChildren(detail(bucket, o, ctx, () => open(name), () => { close(); load(true); }));
        } catch (e) {
          if (seq !== openSeq || selected !== name) return;
          if (keep && e.status === 404) close(); else side.replaceChildren(UI.errorBox(e));
        }
      }
      function close() {
        selected = null;
        detailKey = null;
        openSeq += 1;
        side.replaceChildren();
        history.replaceState(null, '', UI.href('storage', ctx.loc.rest || bucket, {}));
      }
      async function uploadAll(files) {
        const names = [];
        for (const f of files) {
          await upload(bucket, prefix + f.name, f);
          names.push(f.name);
        }
        if (names.length) UI.toast('Uploaded ' + names.join(', '));
        await load(true);
        if (files.length === 1) open(prefix + files[0].name);
      }
      fileInput.addEventListener('change', () => UI.act(fileInput, async () => { await uploadAll(Array.from(fileInput.files)); fileInput.value = ''; }));
      drop.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
      drop.addEventListener('dragleave', () => drop.classList.remove('over'));
      drop.addEventListener('drop', (ev) => {
        ev.preventDefault();
        drop.classList.remove('over');
        const files = Array.from((ev.dataTransfer && ev.dataTransfer.files) || []);
        if (files.length) UI.act(null, () => uploadAll(files));
      });
      await load(true);
      if (selected) open(selected);

      // Live: another client's upload, edit or delete in this bucket refreshes the listing and the
      // open object (or closes it when it is gone); a project reset refreshes everything.
      const refresh = UI.debounce(async (names, all) => {
        if (!ctx.alive) return;
        await load(true).catch(() => {});
        if (selected && (all || names.includes(selected))) await open(selected, true);
      }, 150);
      ctx.onStop(UI.watchProject(ctx.project, (e) => refresh(e.names || [], !e.names || e.more),
        (e) => (e.event === 'storage' && e.bucket === bucket) || (e.event === 'change' && e.replaced)));
    },
  };
})();
