'use strict';
// The UI's core: DOM building (text only, never HTML from data), the API client, the router,
// the project picker, the theme, and the one live-update function (UI.watchProject).
(function () {
  const UI = window.UI = { pages: {}, state: { project: null, projects: [], status: null } };

  // ---- DOM: every piece of data becomes a text node or an attribute value, never markup ----
  UI.h = function h(tag, props, ...children) {
    const [name, ...classes] = tag.split('.');
    const e = document.createElement(name || 'div');
    if (classes.length) e.className = classes.join(' ');
    for (const [k, v] of Object.entries(props || {})) {
      if (v == null || v === false) continue;
      if (k === 'text') e.textContent = String(v);
      else if (k === 'class') e.className = (e.className ? e.className + ' ' : '') + v;
      else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
      else if (k === 'value') e.value = v;
      else if (k === 'checked' || k === 'disabled' || k === 'selected' || k === 'hidden' || k === 'required') e[k] = !!v;
      else if (k === 'dataset') Object.assign(e.dataset, v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    UI.append(e, children);
    return e;
  };
  UI.append = function (e, children) {
    for (const c of [children].flat(Infinity)) {
      if (c == null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  };
  const h = UI.h;

  // ---- URLs ----
  UI.enc = encodeURIComponent;
  UI.encPath = (p) => p.split('/').map(encodeURIComponent).join('/');
  /** A deep link: UI.href('firestore', 'users/alice', {database: 'x'}) keeps the project. */
  UI.href = function (page, rest, params) {
    const q = new URLSearchParams();
    if (UI.state.project) q.set('project', UI.state.project);
    for (const [k, v] of Object.entries(params || {})) if (v != null && v !== '') q.set(k, v);
    const tail = rest ? '/' + UI.encPath(rest) : '';
    return (page === 'overview' ? '/ui/' : '/ui/' + page + tail) + '?' + q.toString();
  };
  UI.link = (page, rest, params, text, attrs) => h('a', Object.assign({ href: UI.href(page, rest, params), 'data-nav': true, text }, attrs || {}));
  UI.projectPath = (suffix) => '/emulator/v1/projects/' + UI.enc(UI.state.project) + suffix;

  // ---- API: the UI's header on every call; admin token for the control plane, owner for client APIs ----
  UI.token = () => sessionStorage.getItem('emulatorAdminToken') || '';
  const parse = (text) => { try { return text ? JSON.parse(text) : null; } catch (e) { return text; } };
  /** One request with the UI's headers; resolves to the Response when it is ok, else throws an Error
   * with the server's message (`status`, `data`). Bodies of any kind (uploads are not JSON). */
  UI.send = async function (method, path, body, extraHeaders, signal) {
    const headers = Object.assign({ 'X-Emulator-UI': '1' }, extraHeaders || {});
    if (path.startsWith('/emulator/')) { if (UI.token()) headers.Authorization = 'Bearer ' + UI.token(); }
    else headers.Authorization = 'Bearer owner';
    const r = await fetch(path, { method, headers, cache: 'no-store', body, signal });
    if (!r.ok) {
      const data = parse(await r.text());
      const msg = (data && data.error && data.error.message) || (typeof data === 'string' && data) || r.status + ' ' + r.statusText;
      const err = new Error(msg);
      err.status = r.status;
      err.data = data;
      if (r.status === 401 && path.startsWith('/emulator/')) UI.askToken(msg);
      throw err;
    }
    return r;
  };
  /** A JSON request: the body is sent as JSON, the answer parsed (text when it is not JSON). */
  UI.api = async function (method, path, body, opts) {
    const json = body !== undefined;
    const r = await UI.send(method, path, json ? JSON.stringify(body) : undefined, json ? { 'Content-Type': 'application/json' } : undefined, opts && opts.signal);
    return parse(await r.text());
  };
  UI.get = (path) => UI.api('GET', path);

  // ---- live updates ----
  /**
   * The one source of live updates: calls onChange(event) whenever the project's documents change
   * (`change` events) or, with `accept`, for the events accept(event) keeps (event.event names the
   * kind: `change` for documents, `storage` for Cloud Storage objects), and returns a function that
   * stops watching. It reads the project's change feed as Server-Sent
   * Events (GET /emulator/v1/projects/{p}/events) through fetch, so the UI's header and the admin
   * token go with it; if the stream breaks it reconnects after a second, and if it cannot be
   * opened at all it falls back to polling the revision counter.
   * After a reconnect it calls onChange({}) once, since changes in between were not seen.
   * A hidden or departing page holds no stream (it reconnects when it is back): browsers
   * allow six HTTP/1.1 connections per host, and streams kept open by background tabs or by pages
   * in the back-forward cache would make the seventh page load wait for a free connection.
   */
  UI.watchProject = function (project, onChange, accept) {
    const wanted = accept || ((e) => e.event === 'change');
    let stopped = false, timer = null, controller = null, wake = null, leaving = false, connected = false;
    const path = '/emulator/v1/projects/' + UI.enc(project);
    const away = () => leaving || document.hidden;
    const resume = () => { if (wake) { const w = wake; wake = null; w(); } };
    const onHide = () => { leaving = true; if (controller) controller.abort(); };
    const onShow = () => { leaving = false; if (!document.hidden) resume(); };
    const onVisibility = () => { if (document.hidden) { if (controller) controller.abort(); } else if (!leaving) resume(); };
    window.addEventListener('pagehide', onHide);
    window.addEventListener('pageshow', onShow);
    document.addEventListener('visibilitychange', onVisibility);
    async function stream() {
      controller = new AbortController();
      const headers = { 'X-Emulator-UI': '1', Accept: 'text/event-stream' };
      if (UI.token()) headers.Authorization = 'Bearer ' + UI.token();
      const r = await fetch(path + '/events', { headers, signal: controller.signal, cache: 'no-store' });
      if (!r.ok || !r.body || !(r.headers.get('content-type') || '').startsWith('text/event-stream')) throw new Error('no event stream');
      if (connected && !stopped) onChange({});
      connected = true;
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done || stopped) return;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = block.split('\n');
          const kind = (lines.find((l) => l.startsWith('event: ')) || 'event: message').slice(7);
          const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          if (!data || stopped) continue;
          let event;
          try { event = Object.assign(JSON.parse(data), { event: kind }); } catch (e) { event = { event: kind }; }
          if (wanted(event)) onChange(event);
        }
      }
    }
    async function poll(last) {
      if (stopped) return;
      try {
        const r = await UI.get(path + '/revision');
        if (!stopped && last !== null && r.revision !== last) onChange({});
        last = r.revision;
      } catch (e) { /* the next tick tries again */ }
      if (!stopped) timer = setTimeout(() => poll(last), 1000);
    }
    async function run() {
      let failures = 0;
      while (!stopped) {
        if (away()) {
          await new Promise((resolve) => { wake = resolve; });
          continue;
        }
        try { await stream(); failures = 0; } catch (e) { if (!away()) failures += 1; }
        if (stopped) return;
        if (away()) continue;
        if (failures >= 3) return poll(null);  // no event stream here: poll instead
        await new Promise((resolve) => { timer = setTimeout(resolve, 1000); });
      }
    }
    run();
    return () => {
      stopped = true;
      clearTimeout(timer);
      if (controller) controller.abort();
      window.removeEventListener('pagehide', onHide);
      window.removeEventListener('pageshow', onShow);
      document.removeEventListener('visibilitychange', onVisibility);
      resume();
    };
  };
  /** Calls fn every `ms` while the page is open and the tab visible (logs that are not documents). */
  UI.every = function (ms, fn) {
    let stopped = false, timer = null;
    async function tick() {
      if (stopped) return;
      if (!document.hidden) { try { await fn(); } catch (e) { /* next time */ } }
      if (!stopped) timer = setTimeout(tick, ms);
    }
    timer = setTimeout(tick, ms);
    return () => { stopped = true; clearTimeout(timer); };
  };

  // ---- formatting ----
  UI.time = function (v) {
    if (v == null || v === '') return '';
    const d = typeof v === 'number' || /^\d+$/.test(String(v)) ? new Date(Number(v)) : new Date(v);
    if (isNaN(d)) return String(v);
    const p = (n, w) => String(n).padStart(w || 2, '0');
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
  };
  UI.num = (n) => Number(n || 0).toLocaleString('en-US');
  UI.json = (v) => JSON.stringify(v, null, 2);

  // ---- toasts and errors ----
  UI.toast = function (text, bad) {
    const t = h('div.toast' + (bad ? '.bad' : ''), { text });
    document.getElementById('toasts').append(t);
    setTimeout(() => t.remove(), bad ? 8000 : 3500);
  };
  UI.errorBox = (e) => h('div.notice.bad', { role: 'alert', text: (e && e.message) || String(e) });
  /** Runs an action from a button: disables it meanwhile, toasts failures. */
  UI.act = async function (button, fn) {
    if (button) button.disabled = true;
    try { return await fn(); } catch (e) { UI.toast(e.message || String(e), true); } finally { if (button) button.disabled = false; }
  };

  // ---- admin token (when the emulator runs with --admin-token) ----
  let asking = false;
  UI.askToken = function (message) {
    if (asking) return;
    asking = true;
    const input = h('input', { type: 'password', autocomplete: 'off', id: 'admin-token', required: true });
    const d = UI.dialog('Admin token required', [
      h('p', { text: 'This emulator was started with --admin-token. Enter the token to use the UI; it is kept for this tab only.' }),
      h('p.muted.small', { text: message }),
      h('label.field', {}, 'Token', input),
    ], async () => { sessionStorage.setItem('emulatorAdminToken', input.value); asking = false; await UI.start(); }, 'Use token');
    d.addEventListener('close', () => { if (!document.querySelector('dialog[open]')) asking = false; });
  };

  // ---- routing ----
  UI.location = function () {
    let p = location.pathname;
    p = p === '/' || p === '/ui' || p === '/ui/' ? '' : p.replace(/^\/ui\//, '');
    const segs = p.split('/').filter(Boolean).map((s) => { try { return decodeURIComponent(s); } catch (e) { return s; } });
    return { page: segs[0] || 'overview', rest: segs.slice(1).join('/'), query: new URLSearchParams(location.search) };
  };
  UI.navigate = function (url, replace) {
    if (replace) history.replaceState(null, '', url); else history.pushState(null, '', url);
    UI.render();
  };
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest && ev.target.closest('a[data-nav]');
    if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    UI.navigate(a.getAttribute('href'));
  });
  window.addEventListener('popstate', () => UI.render());

  const NAV = [['overview', 'Overview'], ['auth', 'Auth'], ['firestore', 'Firestore'], ['storage', 'Storage'], ['pubsub', 'Pub/Sub'], ['requests', 'Requests'], ['functions', 'Functions'], ['control', 'Control']];
  let current = null;
  UI.render = async function () {
    if (current) current.stop();
    const loc = UI.location();
    const wanted = loc.query.get('project');
    if (wanted && wanted !== UI.state.project) {
      UI.state.project = wanted;
      if (!UI.state.projects.includes(wanted)) await UI.loadProjects();
    }
    localStorage.setItem('emulatorProject', UI.state.project || '');
    syncPicker();
    const nav = document.getElementById('nav');
    nav.replaceChildren(...NAV.map(([id, label]) => UI.link(id, '', {}, label, loc.page === id ? { 'aria-current': 'page' } : {})));
    const page = UI.pages[loc.page];
    const main = document.getElementById('main');
    const stops = [];
    const ctx = current = {
      loc, main, project: UI.state.project,
      alive: true,
      onStop: (fn) => stops.push(fn),
      stop() { this.alive = false; for (const f of stops.splice(0)) f(); },
    };
    main.replaceChildren();
    document.title = (page ? page.title : 'Not found') + ' · ' + (UI.state.project || '') + ' · Emulator';
    if (!page) { main.append(h('h1', { text: 'Not found' }), h('p', {}, 'No page “' + loc.page + '”. ', UI.link('overview', '', {}, 'Overview'))); return; }
    try { await page.render(ctx); } catch (e) { if (ctx.alive) main.append(UI.errorBox(e)); }
  };

  // ---- projects ----
  UI.loadProjects = async function () {
    const r = await UI.get('/emulator/v1/projects');
    UI.state.projects = r.projects.map((p) => p.projectId);
    UI.state.defaultProject = (r.projects.find((p) => p.default) || r.projects[0] || {}).projectId;
  };
  function syncPicker() {
    const sel = document.getElementById('project');
    const list = UI.state.projects.includes(UI.state.project) || !UI.state.project ? UI.state.projects : UI.state.projects.concat([UI.state.project]);
    sel.replaceChildren(...list.map((p) => h('option', { value: p, text: p, selected: p === UI.state.project })));
  }
  function pickProject() {
    const url = new URL(location.href);
    url.searchParams.set('project', document.getElementById('project').value);
    // Paths inside one project (a document, an invocation) mean nothing in another.
    const loc = UI.location();
    const page = loc.page === 'overview' ? '/ui/' : '/ui/' + loc.page;
    const q = new URLSearchParams({ project: url.searchParams.get('project') });
    UI.navigate(page + '?' + q.toString());
  }

  // ---- theme ----
  function applyTheme(t) {
    if (t) document.documentElement.dataset.theme = t; else delete document.documentElement.dataset.theme;
  }
  function toggleTheme() {
    const dark = document.documentElement.dataset.theme ? document.documentElement.dataset.theme === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
    const next = dark ? 'light' : 'dark';
    localStorage.setItem('emulatorTheme', next);
    applyTheme(next);
  }
  applyTheme(localStorage.getItem('emulatorTheme'));

  // ---- start ----
  UI.start = async function () {
    const main = document.getElementById('main');
    try {
      UI.state.status = await UI.get('/emulator/v1/status');
      await UI.loadProjects();
    } catch (e) {
      main.replaceChildren(UI.errorBox(e));
      return;
    }
    const wanted = UI.location().query.get('project') || localStorage.getItem('emulatorProject');
    UI.state.project = wanted && UI.state.projects.includes(wanted) ? wanted : (UI.state.defaultProject || UI.state.status.project);
    if (!UI.location().query.get('project')) {
      const url = new URL(location.href);
      url.searchParams.set('project', UI.state.project);
      if (url.pathname === '/' || url.pathname === '/ui') url.pathname = '/ui/';
      history.replaceState(null, '', url.pathname + url.search);
    }
    await UI.render();
  };
  document.addEventListener('DOMContentLoaded', () => {
    document.getElementById('theme').addEventListener('click', toggleTheme);
    document.getElementById('project').addEventListener('change', pickProject);
    UI.start();
  });
})();