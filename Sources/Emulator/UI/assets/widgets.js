'use strict';
// Shared widgets: dialogs, confirmations, copyable snippets, tables, key/value lists, tabs and
// JSON text areas. All text goes in through UI.h (text nodes), never as markup.
(function () {
  const h = UI.h;

  /**
   * A modal <dialog> (Escape closes it, focus stays inside). `onSubmit` may throw: the message is
   * shown in the dialog and it stays open. Returns the dialog element.
   */
  UI.dialog = function (title, body, onSubmit, submitText, opts) {
    const error = h('div.notice.bad', { role: 'alert', hidden: true });
    const submit = h('button.primary' + (opts && opts.danger ? '.danger' : ''), { type: 'submit', text: submitText || 'Save' });
    const cancel = h('button', { type: 'button', text: 'Cancel' });
    const form = h('form', { method: 'dialog' }, h('h2', { text: title }), body, error, h('div.row.end', {}, cancel, submit));
    const d = h('dialog', { 'aria-label': title }, form);
    cancel.addEventListener('click', () => d.close());
    d.addEventListener('close', () => d.remove());
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      submit.disabled = true;
      error.hidden = true;
      try {
        await onSubmit();
        d.close();
      } catch (e) {
        error.textContent = e.message || String(e);
        error.hidden = false;
      } finally {
        submit.disabled = false;
      }
    });
    document.body.append(d);
    d.showModal();
    const first = form.querySelector('input, select, textarea');
    if (first) first.focus();
    return d;
  };

  /** Asks before something destructive; resolves to true when confirmed. */
  UI.confirm = function (title, text, action) {
    return new Promise((resolve) => {
      let done = false;
      const d = UI.dialog(title, [h('p', { text })], async () => { done = true; resolve(true); }, action || 'Delete', { danger: true });
      d.addEventListener('close', () => { if (!done) resolve(false); });
    });
  };

  /** A snippet with a Copy button. */
  UI.copyBlock = function (text, label) {
    const button = h('button', { type: 'button', text: 'Copy', 'aria-label': 'Copy ' + (label || 'snippet') });
    button.addEventListener('click', async () => {
      try { await navigator.clipboard.writeText(text); button.textContent = 'Copied'; } catch (e) {
        const r = document.createRange(); r.selectNodeContents(pre); getSelection().removeAllRanges(); getSelection().addRange(r);
        button.textContent = 'Selected';
      }
      setTimeout(() => { button.textContent = 'Copy'; }, 1500);
    });
    const pre = h('pre', { text });
    return h('div.copy', {}, pre, button);
  };

  /**
   * A table: columns [{title, cell(row) → node|text, class}], rows, and an optional onOpen(row)
   * that makes each row's first cell a button (keyboard reachable) and the row clickable.
   */
  UI.table = function (columns, rows, onOpen, opts) {
    const head = h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', text: c.title, class: c.class }))));
    const body = h('tbody');
    UI.appendRows(body, columns, rows, onOpen, opts);
    return h('div.table-wrap', {}, h('table', { 'aria-label': opts && opts.label }, head, body));
  };
  UI.appendRows = function (body, columns, rows, onOpen, opts) {
    for (const row of rows) {
      const tr = h('tr', { dataset: opts && opts.key ? { key: opts.key(row) } : undefined });
      columns.forEach((c, i) => {
        let content = c.cell(row);
        if (i === 0 && onOpen) content = h('button.link', { type: 'button', onclick: (ev) => { ev.stopPropagation(); onOpen(row, tr); } }, content);
        tr.append(h('td', { class: c.class }, content));
      });
      if (onOpen) tr.addEventListener('click', () => onOpen(row, tr));
      body.append(tr);
    }
  };

  /** A definition list of [label, value] pairs (values are text or nodes). */
  UI.kv = (pairs) => h('dl.kv', {}, pairs.filter(Boolean).map(([k, v]) => [h('dt', { text: k }), h('dd', {}, v == null || v === '' ? '—' : v)]));

  /** Tabs as links (deep-linkable): [[id, label, href]]. */
  UI.tabs = (items, active) => h('nav.tabs', { 'aria-label': 'Views' }, items.map(([id, label, href]) =>
    h('a', { href, 'data-nav': true, text: label, 'aria-current': id === active ? 'page' : null })));

  /** A badge with the CSS class of its kind (allow, deny, error, admin, ok, ...). */
  UI.badge = (text, kind) => h('span.badge', { class: kind || String(text).toLowerCase(), text });

  /** Parses JSON from a text area, naming the problem. */
  UI.parseJSON = function (text, what) {
    try { return JSON.parse(text); } catch (e) { throw new Error((what || 'JSON') + ' is not valid JSON: ' + e.message); }
  };

  /** A labelled input; returns [label element, input element]. */
  UI.input = function (label, props) {
    const input = props && props.tag === 'select' ? h('select', props.attrs || {}, props.options || [])
      : props && props.tag === 'textarea' ? h('textarea', props.attrs || {})
        : h('input', Object.assign({ type: 'text' }, props || {}));
    return [h('label.field', {}, label, input), input];
  };

  /** Debounces text input for searches. */
  UI.debounce = function (fn, ms) {
    let t = null;
    return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms || 250); };
  };
})();