'use strict';
// Auth: users (search, filters, paging), details and editing, MFA factors and tenants when the
// emulator reports them, purging anonymous users, and OOB and SMS codes waiting to be used.
(function () {
  const h = UI.h;
  const ITK = '/identitytoolkit.googleapis.com';
  const PAGE = 50;

  function identifier(u) {
    return u.displayName || u.email || u.phoneNumber || (isAnonymous(u) ? '(anonymous)' : '(no identifier)');
  }
  function claimsText(u) { try { return UI.json(JSON.parse(u.customAttributes)); } catch (e) { return u.customAttributes; } }
  function isAnonymous(u) { return !u.email && !u.phoneNumber && !u.passwordHash && !(u.providerUserInfo || []).length; }
  function flags(u) {
    const out = (u.providerUserInfo || []).map((p) => UI.badge(p.providerId, 'provider'));
    if (isAnonymous(u)) out.push(UI.badge('anonymous'));
    if (u.disabled) out.push(UI.badge('disabled'));
    if (u.emailVerified) out.push(UI.badge('verified', 'ok'));
    if ((u.mfaInfo || []).length) out.push(UI.badge('MFA ×' + u.mfaInfo.length, 'info'));
    if (u.tenantId) out.push(UI.badge('tenant ' + u.tenantId, 'info'));
    return h('div.badges', {}, out);
  }

  /** The add/edit form; returns {element, body()} building an accounts:update / create body. */
  function userForm(u) {
    u = u || {};
    const f = {};
    const field = (key, label, props) => { const [l, i] = UI.input(label, props); f[key] = i; return l; };
    const claims = u.customAttributes ? claimsText(u) : '';
    const body = h('div', {},
      u.localId ? null : field('localId', 'UID (empty = generated)', {}),
      field('displayName', 'Display name', { value: u.displayName || '' }),
      field('email', 'Email', { value: u.email || '', type: 'email' }),
      field('password', u.localId ? 'New password (empty = unchanged)' : 'Password', { type: 'password', autocomplete: 'new-password' }),
      field('phoneNumber', 'Phone number (+…)', { value: u.phoneNumber || '' }),
      field('photoUrl', 'Photo URL', { value: u.photoUrl || '' }),
      field('claims', 'Custom claims (JSON object)', { tag: 'textarea', attrs: { rows: 4, placeholder: '{"admin": true}' } }),
    );
    f.claims.value = claims;
    f.emailVerified = h('input', { type: 'checkbox', checked: u.emailVerified });
    f.disabled = h('input', { type: 'checkbox', checked: u.disabled });
    body.append(h('label.check', {}, f.emailVerified, 'Email verified'), h('label.check', {}, f.disabled, 'Disabled'));
    return {
      element: body,
      body() {
        const b = {};
        for (const k of ['displayName', 'email', 'phoneNumber', 'photoUrl']) {
          const v = f[k].value.trim();
          if (v) b[k] = v; else if (u.localId && u[k]) (b.deleteAttribute = b.deleteAttribute || []).push({ displayName: 'DISPLAY_NAME', photoUrl: 'PHOTO_URL', email: 'EMAIL', phoneNumber: 'PHONE_NUMBER' }[k]);
        }
        if (u.localId && !f.phoneNumber.value.trim() && u.phoneNumber) { b.deleteProvider = ['phone']; b.deleteAttribute = (b.deleteAttribute || []).filter((x) => x !== 'PHONE_NUMBER'); }
        if (b.deleteAttribute && !b.deleteAttribute.length) delete b.deleteAttribute;
        if (f.password.value) b.password = f.password.value;
        if (f.localId && f.localId.value.trim()) b.localId = f.localId.value.trim();
        b.emailVerified = f.emailVerified.checked;
        const text = f.claims.value.trim();
        if (text) {
          const c = UI.parseJSON(text, 'Custom claims');
          if (!c || typeof c !== 'object' || Array.isArray(c)) throw new Error('Custom claims must be a JSON object.');
          b.customAttributes = JSON.stringify(c);
        } else if (u.customAttributes) b.customAttributes = '';
        b.disabled = f.disabled.checked;
        return b;
      },
    };
  }

  async function editUser(u, tenantId, done) {
    const form = userForm(u);
    const p = UI.state.project;
    UI.dialog('Edit user ' + u.localId, form.element, async () => {
      const b = form.body();
      const disable = b.disabled;
      delete b.disabled;
      await UI.api('POST', ITK + '/v1/projects/' + UI.enc(p) + '/accounts:update', Object.assign(b, { localId: u.localId, disableUser: disable, tenantId: tenantId || undefined }));
      UI.toast('Saved ' + u.localId);
      done();
    });
  }

  async function addUser(tenantId, done) {
    const form = userForm(null);
    const p = UI.state.project;
    UI.dialog('Add user', form.element, async () => {
      const b = form.body();
      const claims = b.customAttributes, disabled = b.disabled;
      delete b.customAttributes;
      const r = await UI.api('POST', ITK + '/v1/projects/' + UI.enc(p) + '/accounts', Object.assign(b, { tenantId: tenantId || undefined }));
      if (claims || disabled) {
        await UI.api('POST', ITK + '/v1/projects/' + UI.enc(p) + '/accounts:update', { localId: r.localId, customAttributes: claims, disableUser: disabled, tenantId: tenantId || undefined });
      }
      UI.toast('Created ' + r.localId);
      done();
    }, 'Create');
  }

  function details(u, tenantId, reload) {
    const p = UI.state.project;
    const mfa = u.mfaInfo || [];
    return h('section.card', { 'aria-label': 'User ' + u.localId },
      h('div.row', {}, h('h2.grow', { text: identifier(u) }),
        h('button', { type: 'button', text: 'Edit', onclick: () => editUser(u, tenantId, reload) }),
        h('button.danger', { type: 'button', text: 'Delete', onclick: async (ev) => {
          if (!await UI.confirm('Delete user', 'Delete ' + identifier(u) + ' (' + u.localId + ')? Its user-deleted triggers run.')) return;
          await UI.act(ev.target, async () => {
            await UI.api('POST', ITK + '/v1/projects/' + UI.enc(p) + '/accounts:delete', { localId: u.localId, tenantId: tenantId || undefined });
            UI.toast('Deleted ' + u.localId);
            reload();
          });
        } })),
      UI.kv([['UID', h('code', { text: u.localId })], ['Email', u.email], ['Email verified', String(!!u.emailVerified)], ['Phone', u.phoneNumber],
        ['Display name', u.displayName], ['Disabled', String(!!u.disabled)], ['Created', UI.time(u.createdAt)], ['Last sign-in', UI.time(u.lastLoginAt)],
        ['Providers', flags(u)], ['Custom claims', u.customAttributes ? h('pre', { text: claimsText(u) }) : null],
        ['Tenant', u.tenantId]]),
      h('h3', { text: 'Multi-factor authentication' }),
      mfa.length ? UI.table([
        { title: 'Factor', cell: (m) => m.displayName || m.mfaEnrollmentId || '' },
        { title: 'Kind', cell: (m) => (m.phoneInfo ? 'SMS ' + m.phoneInfo : m.totpInfo ? 'TOTP' : 'other') },
        { title: 'Enrolled', cell: (m) => UI.time(m.enrolledAt) }], mfa, null, { label: 'MFA factors' })
        : h('p.muted', { text: 'No second factors enrolled.' }),
      h('details', {}, h('summary', { text: 'Raw record (accounts:lookup)' }), h('pre', { text: UI.json(u) })));
  }

  UI.pages.auth = {
    title: 'Auth',
    async render(ctx) {
      const p = UI.state.project;
      const q = ctx.loc.query;
      const search = h('input', { type: 'search', placeholder: 'Search uid, email, name, phone', value: q.get('search') || '', 'aria-label': 'Search users' });
      const kinds = [['', 'All users'], ['anonymous', 'Anonymous'], ['disabled', 'Disabled'], ['verified', 'Email verified'], ['unverified', 'Email not verified'],
        ['password', 'Password'], ['phone', 'Phone'], ['apple.com', 'Apple'], ['google.com', 'Google'], ['github.com', 'GitHub'], ['facebook.com', 'Facebook']];
      const kind = h('select', { 'aria-label': 'Filter by kind' }, kinds.map(([v, t]) => h('option', { value: v, text: t, selected: v === (q.get('kind') || '') })));
      const tenantSlot = h('span');
      const countLine = h('p.muted.small', { 'aria-live': 'polite' });
      const list = h('div');
      const detail = h('div');
      const codes = h('div');
      let tenantId = q.get('tenant') || '';
      ctx.main.append(h('h1', { text: 'Auth' }),
        h('div.toolbar', {}, search, kind, tenantSlot,
          h('button.primary', { type: 'button', text: 'Add user', onclick: () => addUser(tenantId, reload) }),
          h('button', { type: 'button', text: 'Purge anonymous…', onclick: purge }),
          h('button.danger', { type: 'button', text: 'Delete all users', onclick: deleteAll }),
          h('button', { type: 'button', text: 'Refresh', onclick: () => reload() })),
        countLine, h('div.split', {}, list, h('div', {}, detail, codes)));

      // Tenants: shown when the emulator serves them (today it answers 501 and the picker stays hidden).
      UI.api('GET', ITK + '/v2/projects/' + UI.enc(p) + '/tenants').then((r) => {
        const tenants = (r && r.tenants) || [];
        if (!tenants.length || !ctx.alive) return;
        const sel = h('select', { 'aria-label': 'Tenant' }, h('option', { value: '', text: 'Default tenant' }),
          tenants.map((t) => { const id = t.tenantId || (t.name || '').split('/').pop(); return h('option', { value: id, text: (t.displayName || id) + ' (' + id + ')', selected: id === tenantId }); }));
        sel.addEventListener('change', () => { tenantId = sel.value; reload(); });
        tenantSlot.replaceChildren(sel);
      }, (e) => { if (ctx.alive && e.status === 501) tenantSlot.replaceChildren(h('span.muted.small', { title: e.message, text: 'Tenants: not served by this build' })); });

      let token = null, selected = q.get('uid');
      async function loadPage(append) {
        const params = new URLSearchParams({ pageSize: String(PAGE) });
        if (search.value.trim()) params.set('search', search.value.trim());
        if (kind.value) params.set('kind', kind.value);
        if (tenantId) params.set('tenantId', tenantId);
        if (append && token) params.set('pageToken', token);
        const r = await UI.get(UI.projectPath('/users?' + params.toString()));
        if (!ctx.alive) return;
        token = r.nextPageToken || null;
        countLine.textContent = UI.num(r.matched) + ' of ' + UI.num(r.total) + ' users' + (r.matched > PAGE ? ' (newest first, ' + PAGE + ' at a time)' : '');
        const columns = [
          { title: 'Identifier', cell: (u) => identifier(u), class: 'wrap' },
          { title: 'Providers', cell: flags },
          { title: 'Created', cell: (u) => UI.time(u.createdAt), class: 'hide-narrow nowrap' },
          { title: 'Signed in', cell: (u) => UI.time(u.lastLoginAt), class: 'hide-mid nowrap' },
          { title: 'UID', cell: (u) => h('code', { text: u.localId, title: u.localId }), class: 'uid' },
        ];
        const open = (u, tr) => {
          selected = u.localId;
          for (const x of list.querySelectorAll('tr.selected')) x.classList.remove('selected');
          tr.classList.add('selected');
          detail.replaceChildren(details(u, tenantId, reload));
          history.replaceState(null, '', UI.href('auth', '', { uid: u.localId, search: search.value.trim(), kind: kind.value }));
        };
        if (!append) {
          list.replaceChildren(r.users.length ? UI.table(columns, r.users, open, { label: 'Users', key: (u) => u.localId }) : h('div.empty', { text: 'No users match.' }));
        } else {
          UI.appendRows(list.querySelector('tbody'), columns, r.users, open, { key: (u) => u.localId });
        }
        list.querySelector('.more') && list.querySelector('.more').remove();
        if (token) list.append(h('div.more', {}, h('button', { type: 'button', text: 'Load ' + PAGE + ' more', onclick: (ev) => UI.act(ev.target, () => loadPage(true)) })));
        if (selected) {
          const u = r.users.find((x) => x.localId === selected);
          const tr = u && list.querySelector('tr[data-key="' + CSS.escape(u.localId) + '"]');
          if (u && tr) open(u, tr);
        }
      }
      async function loadCodes() {
        const [oob, sms] = await Promise.all([UI.get(UI.projectPath('/oobCodes')), UI.get(UI.projectPath('/verificationCodes'))]);
        if (!ctx.alive) return;
        codes.replaceChildren(h('section.card', { 'aria-label': 'Codes waiting' },
          h('h2', { text: 'Email action codes' }),
          oob.oobCodes.length ? UI.table([
            { title: 'Type', cell: (c) => c.requestType }, { title: 'Email', cell: (c) => c.email },
            { title: 'Link', cell: (c) => (/^https?:\/\//.test(c.oobLink) ? h('a', { href: c.oobLink, target: '_blank', rel: 'noopener noreferrer', text: 'open' }) : h('code', { text: c.oobLink })) }], oob.oobCodes.slice().reverse(), null, { label: 'Email action codes' })
            : h('p.muted', { text: 'None waiting.' }),
          h('h2', { text: 'SMS codes' }),
          sms.verificationCodes.length ? UI.table([
            { title: 'Phone', cell: (c) => c.phoneNumber }, { title: 'Code', cell: (c) => h('code', { text: c.code }) }], sms.verificationCodes.slice().reverse(), null, { label: 'SMS codes' })
            : h('p.muted', { text: 'None waiting.' })));
      }
      async function reload() {
        detail.replaceChildren();
        await Promise.all([loadPage(false), loadCodes()]);
      }
      async function purge() {
        const [l, i] = UI.input('Delete anonymous users whose last sign-in is at least this many seconds ago', { type: 'number', min: '0', value: '0' });
        UI.dialog('Purge anonymous users', [l], async () => {
          const r = await UI.api('POST', UI.projectPath('/accounts:purgeAnonymous'), { olderThanSeconds: Number(i.value) });
          UI.toast('Deleted ' + r.deletedUids.length + ' anonymous users');
          reload();
        }, 'Purge');
      }
      async function deleteAll() {
        if (!await UI.confirm('Delete all users', 'Delete every user of ' + p + '? Codes and settings stay.')) return;
        await UI.api('DELETE', UI.projectPath('/accounts'));
        UI.toast('Deleted every user');
        reload();
      }
      const refilter = UI.debounce(() => { token = null; loadPage(false).catch((e) => list.replaceChildren(UI.errorBox(e))); }, 250);
      search.addEventListener('input', refilter);
      kind.addEventListener('change', refilter);
      await reload();
    },
  };
})();