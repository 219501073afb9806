'use strict';
// Firestore values as the REST API spells them ({"stringValue": ...}): showing them with their
// type, editing every type, and converting between plain JSON and typed JSON.
(function () {
  const h = UI.h;
  const V = UI.values = {};
  V.types = ['string', 'integer', 'double', 'boolean', 'null', 'timestamp', 'geopoint', 'reference', 'bytes', 'map', 'array'];

  V.typeOf = function (v) {
    for (const t of ['string', 'integer', 'double', 'boolean', 'null', 'timestamp', 'reference', 'bytes']) if (t + 'Value' in v) return t;
    if ('geoPointValue' in v) return 'geopoint';
    if ('mapValue' in v) return 'map';
    if ('arrayValue' in v) return 'array';
    return 'unknown';
  };

  /** A one-line text for lists ("Alice", 3, [2 items], {…}). */
  V.preview = function (v) {
    switch (V.typeOf(v)) {
      case 'string': return JSON.stringify(v.stringValue.length > 60 ? v.stringValue.slice(0, 60) + '…' : v.stringValue);
      case 'integer': return v.integerValue;
      case 'double': return String(v.doubleValue);
      case 'boolean': return String(v.booleanValue);
      case 'null': return 'null';
      case 'timestamp': return v.timestampValue;
      case 'geopoint': return '[' + (v.geoPointValue.latitude || 0) + '° , ' + (v.geoPointValue.longitude || 0) + '°]';
      case 'reference': return v.referenceValue.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, '/');
      case 'bytes': return 'bytes(' + v.bytesValue.length + ' b64)';
      case 'map': return '{' + Object.keys((v.mapValue.fields) || {}).length + ' fields}';
      case 'array': return '[' + ((v.arrayValue.values) || []).length + ' items]';
      default: return JSON.stringify(v);
    }
  };

  /** A document's first fields as one line (the list's preview column). */
  V.docPreview = function (doc, field) {
    const f = doc.fields || {};
    if (field && f[field]) return field + ': ' + V.preview(f[field]);
    return Object.keys(f).sort().slice(0, 3).map((k) => k + ': ' + V.preview(f[k])).join(', ');
  };

  /** Typed → plain JSON (timestamps, references and bytes become strings, geopoints objects). */
  V.plain = function (v) {
    switch (V.typeOf(v)) {
      case 'string': return v.stringValue;
      case 'integer': return Number(v.integerValue);
      case 'double': return Number(v.doubleValue);
      case 'boolean': return v.booleanValue;
      case 'null': return null;
      case 'timestamp': return v.timestampValue;
      case 'geopoint': return { latitude: v.geoPointValue.latitude || 0, longitude: v.geoPointValue.longitude || 0 };
      case 'reference': return v.referenceValue;
      case 'bytes': return v.bytesValue;
      case 'map': return V.plainFields(v.mapValue.fields || {});
      case 'array': return (v.arrayValue.values || []).map(V.plain);
      default: return null;
    }
  };
  V.plainFields = (fields) => Object.fromEntries(Object.entries(fields || {}).map(([k, x]) => [k, V.plain(x)]));

  /** Plain JSON → typed (whole numbers become integers). */
  V.typed = function (x) {
    if (x === null) return { nullValue: null };
    if (typeof x === 'string') return { stringValue: x };
    if (typeof x === 'boolean') return { booleanValue: x };
    if (typeof x === 'number') return Number.isInteger(x) ? { integerValue: String(x) } : { doubleValue: x };
    if (Array.isArray(x)) return { arrayValue: { values: x.map(V.typed) } };
    return { mapValue: { fields: V.typedFields(x) } };
  };
  V.typedFields = (o) => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, V.typed(x)]));

  /** A value shown with nested maps and arrays expanded (as text, never markup). */
  V.render = function (v) {
    const t = V.typeOf(v);
    if (t === 'map' || t === 'array') {
      const entries = t === 'map' ? Object.entries(v.mapValue.fields || {}).sort(([a], [b]) => (a < b ? -1 : 1)) : (v.arrayValue.values || []).map((x, i) => [String(i), x]);
      if (!entries.length) return h('span.muted', { text: t === 'map' ? '{}' : '[]' });
      return h('div.nested', {}, entries.map(([k, x]) => h('div', {}, h('span.muted', { text: k + ' (' + V.typeOf(x) + '): ' }), V.render(x))));
    }
    if (t === 'string') return h('span', { class: 'str', text: v.stringValue });
    return h('span', { text: V.preview(v) });
  };

  /** Field path segment for updateMask (backquoted unless a plain identifier). */
  V.fieldPath = (name) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`');

  /**
   * An editor for one value: a type selector and the inputs that type needs. Returns
   * {element, read()} where read() builds the typed value or throws naming the problem.
   */
  V.editor = function (initial) {
    const start = initial || { stringValue: '' };
    const type = h('select', { 'aria-label': 'Type' }, V.types.map((t) => h('option', { value: t, text: t, selected: t === V.typeOf(start) })));
    const slot = h('div');
    let read = () => ({ nullValue: null });
    function build(t, v) {
      slot.replaceChildren();
      const field = (label, props) => { const [l, i] = UI.input(label, props); slot.append(l); return i; };
      switch (t) {
        case 'string': { const i = field('Value', { tag: 'textarea', attrs: { rows: 3, 'aria-label': 'Value' } }); i.style.minHeight = '60px'; i.value = v && 'stringValue' in v ? v.stringValue : ''; read = () => ({ stringValue: i.value }); break; }
        case 'integer': { const i = field('Value', { value: v && v.integerValue || '0', inputmode: 'numeric', 'aria-label': 'Value' }); read = () => { if (!/^-?\d+$/.test(i.value.trim())) throw new Error('An integer is digits with an optional minus sign.'); return { integerValue: i.value.trim() }; }; break; }
        case 'double': { const i = field('Value', { value: v && 'doubleValue' in v ? String(v.doubleValue) : '0', 'aria-label': 'Value' }); read = () => { const n = Number(i.value); if (i.value.trim() === '' || isNaN(n) && i.value.trim() !== 'NaN') throw new Error('Not a number: ' + i.value); return { doubleValue: n }; }; break; }
        case 'boolean': { const i = h('input', { type: 'checkbox', checked: v && v.booleanValue, 'aria-label': 'Value' }); slot.append(h('label.check', {}, i, 'true')); read = () => ({ booleanValue: i.checked }); break; }
        case 'null': slot.append(h('p.muted', { text: 'null' })); read = () => ({ nullValue: null }); break;
        case 'timestamp': { const i = field('RFC 3339 time', { value: v && v.timestampValue || new Date().toISOString(), 'aria-label': 'Value' }); read = () => { if (isNaN(new Date(i.value))) throw new Error('Not an RFC 3339 time: ' + i.value); return { timestampValue: i.value.trim() }; }; break; }
        case 'geopoint': {
          const g = (v && v.geoPointValue) || {};
          const lat = field('Latitude', { value: String(g.latitude || 0) }), lng = field('Longitude', { value: String(g.longitude || 0) });
          read = () => { const a = Number(lat.value), b = Number(lng.value); if (isNaN(a) || isNaN(b) || Math.abs(a) > 90 || Math.abs(b) > 180) throw new Error('Latitude is -90..90 and longitude -180..180.'); return { geoPointValue: { latitude: a, longitude: b } }; };
          break;
        }
        case 'reference': {
          const i = field('Document path (e.g. users/alice)', { value: v && v.referenceValue ? v.referenceValue.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, '') : '', 'aria-label': 'Value' });
          read = () => ({ referenceValue: 'projects/' + UI.state.project + '/databases/' + (UI.state.database || '(default)') + '/documents/' + i.value.replace(/^\/+/, '') });
          break;
        }
        case 'bytes': { const i = field('Base64', { value: v && v.bytesValue || '', 'aria-label': 'Value' }); read = () => { try { atob(i.value); } catch (e) { throw new Error('Not base64.'); } return { bytesValue: i.value }; }; break; }
        case 'map': case 'array': {
          const typedNow = v && (t + 'Value') in v ? v : (t === 'map' ? { mapValue: { fields: {} } } : { arrayValue: { values: [] } });
          const i = field('Typed JSON (' + (t === 'map' ? '{"fields": {...}}' : '{"values": [...]}') + ')', { tag: 'textarea', attrs: { 'aria-label': 'Value' } });
          i.value = UI.json(typedNow[t + 'Value']);
          read = () => ({ [t + 'Value']: UI.parseJSON(i.value, 'The ' + t) });
          break;
        }
      }
    }
    type.addEventListener('change', () => build(type.value, null));
    build(V.typeOf(start), start);
    return { element: h('div', {}, h('label.field', {}, 'Type', type), slot), read: () => read() };
  };
})();