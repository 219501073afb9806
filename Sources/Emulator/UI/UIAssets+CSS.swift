extension UIAssets {
    /// Styles: light and dark themes from one set of variables (the OS preference unless the
    /// user picked one), visible focus, and layouts that fold to one column on narrow windows.
    static let appCSS = #"""
:root {
  --bg: #f7f8fa; --panel: #ffffff; --panel2: #f1f3f6; --text: #1c2330; --muted: #5b6577; --border: #d9dee6;
  --accent: #b45309; --accent-text: #ffffff; --link: #1d4ed8; --focus: #2563eb;
  --ok: #15803d; --ok-bg: #dcfce7; --bad: #b91c1c; --bad-bg: #fee2e2; --warn: #92400e; --warn-bg: #fef3c7;
  --info: #1e40af; --info-bg: #dbeafe; --hl: #fff3bf; --hl-deny: #ffe3e3; --hl-allow: #e3fcec;
  --mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace;
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) {
    --bg: #0f141b; --panel: #161d27; --panel2: #1d2633; --text: #e6ebf2; --muted: #9aa6b8; --border: #2c3747;
    --accent: #f59e0b; --accent-text: #111827; --link: #8ab4ff; --focus: #8ab4ff;
    --ok: #4ade80; --ok-bg: #12351f; --bad: #f87171; --bad-bg: #3b1619; --warn: #fbbf24; --warn-bg: #3a2a0a;
    --info: #93c5fd; --info-bg: #172a4a; --hl: #3b3413; --hl-deny: #42191c; --hl-allow: #123222;
    color-scheme: dark;
  }
}
:root[data-theme="dark"] {
  --bg: #0f141b; --panel: #161d27; --panel2: #1d2633; --text: #e6ebf2; --muted: #9aa6b8; --border: #2c3747;
  --accent: #f59e0b; --accent-text: #111827; --link: #8ab4ff; --focus: #8ab4ff;
  --ok: #4ade80; --ok-bg: #12351f; --bad: #f87171; --bad-bg: #3b1619; --warn: #fbbf24; --warn-bg: #3a2a0a;
  --info: #93c5fd; --info-bg: #172a4a; --hl: #3b3413; --hl-deny: #42191c; --hl-allow: #123222;
  color-scheme: dark;
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--text); }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--link); }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; z-index: 10; background: var(--panel); padding: 6px 10px; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; }
h1 { font-size: 20px; margin: 0 0 12px; }
h2 { font-size: 16px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 12px 0 6px; }
.muted { color: var(--muted); }
.small { font-size: 12px; }

.top { display: flex; align-items: center; gap: 16px; padding: 8px 16px; background: var(--panel); border-bottom: 1px solid var(--border);
  position: sticky; top: 0; z-index: 5; flex-wrap: wrap; }
.brand { display: flex; align-items: center; gap: 8px; font-weight: 700; color: var(--text); text-decoration: none; }
#nav { display: flex; gap: 2px; flex-wrap: wrap; flex: 1; }
#nav a { padding: 6px 10px; border-radius: 6px; color: var(--text); text-decoration: none; }
#nav a:hover { background: var(--panel2); }
#nav a[aria-current="page"] { background: var(--accent); color: var(--accent-text); }
.top-right { display: flex; align-items: center; gap: 8px; }
.picker { display: flex; align-items: center; gap: 6px; color: var(--muted); }
main { padding: 16px; max-width: 1600px; margin: 0 auto; }
main:focus { outline: none; }

button, .button { font: inherit; padding: 5px 12px; border-radius: 6px; border: 1px solid var(--border); background: var(--panel2);
  color: var(--text); cursor: pointer; text-decoration: none; display: inline-block; }
button:hover { border-color: var(--muted); }
button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
button.danger { color: var(--bad); border-color: var(--bad); background: transparent; }
button.ghost { background: transparent; border-color: transparent; }
button.link { background: none; border: none; padding: 0; color: var(--link); text-decoration: underline; cursor: pointer; text-align: left; }
button:disabled { opacity: .5; cursor: default; }
input, select, textarea { font: inherit; color: var(--text); background: var(--panel); border: 1px solid var(--border); border-radius: 6px; padding: 4px 8px; }
textarea { font-family: var(--mono); font-size: 12.5px; width: 100%; min-height: 160px; }
input[type="checkbox"] { width: auto; }
label.field { display: flex; flex-direction: column; gap: 3px; margin-bottom: 8px; color: var(--muted); font-size: 12px; }
label.field > input, label.field > select, label.field > textarea { color: var(--text); font-size: 14px; }
label.check { display: flex; align-items: center; gap: 6px; margin-bottom: 8px; }
.row { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.row.end { justify-content: flex-end; }
form.row { align-items: flex-end; }
form.row label.field, .row > label.field { margin-bottom: 0; }
.grow { flex: 1; }
.toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 10px; }
.toolbar input[type="search"] { min-width: 220px; }

.card { background: var(--panel); border: 1px solid var(--border); border-radius: 10px; padding: 14px; margin-bottom: 14px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 14px; margin-bottom: 14px; }
.cards .card { margin-bottom: 0; }
.stat { font-size: 26px; font-weight: 700; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; word-break: break-all; }

table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--border); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; position: sticky; top: 0; background: var(--panel); }
tbody tr:hover { background: var(--panel2); }
tr.selected { background: var(--hl) !important; }
td.wrap { overflow-wrap: anywhere; min-width: 11em; }
td.uid { max-width: 11em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
td.nowrap { white-space: nowrap; }
td.log { min-width: 10em; max-width: 18em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.table-wrap { overflow: auto; max-height: 70vh; border: 1px solid var(--border); border-radius: 8px; background: var(--panel); }

.badge { display: inline-block; padding: 0 7px; border-radius: 999px; font-size: 11.5px; font-weight: 600; border: 1px solid transparent; white-space: nowrap; }
.badge.allow, .badge.ok { background: var(--ok-bg); color: var(--ok); }
.badge.deny, .badge.error, .badge.gave-up, .badge.disabled { background: var(--bad-bg); color: var(--bad); }
.badge.admin, .badge.retrying, .badge.anonymous { background: var(--warn-bg); color: var(--warn); }
.badge.info, .badge.provider { background: var(--info-bg); color: var(--info); }
.badges { display: flex; gap: 4px; flex-wrap: wrap; }

.panes { display: grid; grid-template-columns: minmax(180px, 1fr) minmax(260px, 1.4fr) minmax(320px, 2fr); gap: 12px; align-items: start; }
.pane { background: var(--panel); border: 1px solid var(--border); border-radius: 10px; min-height: 200px; display: flex; flex-direction: column; }
.pane-head { display: flex; align-items: center; gap: 6px; padding: 8px 10px; border-bottom: 1px solid var(--border); flex-wrap: wrap; }
.pane-head h2 { margin: 0; font-size: 14px; flex: 1; word-break: break-all; }
.pane-body { padding: 6px 0; overflow: auto; max-height: 72vh; }
.pane-body.pad { padding: 10px; }
.list { list-style: none; margin: 0; padding: 0; }
.list li { display: flex; align-items: center; }
.list li > a, .list li > button.item { flex: 1; display: flex; gap: 8px; justify-content: space-between; padding: 5px 10px; color: var(--text);
  text-decoration: none; border: none; background: none; font: inherit; text-align: left; cursor: pointer; min-width: 0; }
.list li > a:hover { background: var(--panel2); }
.list li.selected > a { background: var(--hl); }
.list .id { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: var(--mono); font-size: 12.5px; }
.list .missing { font-style: italic; color: var(--muted); }
.list .preview { color: var(--muted); font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 55%; }
.crumbs { display: flex; gap: 4px; flex-wrap: wrap; align-items: center; margin-bottom: 10px; font-family: var(--mono); }
.crumbs a { text-decoration: none; }

.fields { width: 100%; }
.fields td { font-family: var(--mono); font-size: 12.5px; }
.fields td.name { width: 28%; word-break: break-all; }
.fields td.type { width: 90px; color: var(--muted); font-family: inherit; font-size: 11.5px; }
.fields td.value { word-break: break-word; white-space: pre-wrap; }
.fields td.actions { width: 1%; white-space: nowrap; }
.nested { margin-left: 14px; border-left: 2px solid var(--border); padding-left: 8px; }

.source { font-family: var(--mono); font-size: 12.5px; border: 1px solid var(--border); border-radius: 8px; overflow: auto; background: var(--panel); max-height: 60vh; position: relative; }
.source .ln { display: grid; grid-template-columns: 44px 1fr auto; }
.source .ln > span:first-child { color: var(--muted); text-align: right; padding-right: 10px; user-select: none; }
.source .ln > code { white-space: pre; }
.source .ln > .note { color: var(--muted); padding: 0 8px; white-space: nowrap; font-size: 11.5px; }
.source .ln.deny, .source .ln.error { background: var(--hl-deny); }
.source .ln.allow { background: var(--hl-allow); }
.source .ln.statement { box-shadow: inset 3px 0 var(--accent); }
.source .ln.hit { background: var(--hl-allow); }
.source .ln.miss { background: var(--hl-deny); }
.source .ln.err { background: var(--hl); }

.split { display: grid; grid-template-columns: minmax(0, 1.5fr) minmax(0, 1fr); gap: 12px; align-items: start; }
.tabs { display: flex; gap: 4px; margin-bottom: 10px; border-bottom: 1px solid var(--border); }
.tabs a { padding: 6px 12px; text-decoration: none; color: var(--muted); border-bottom: 2px solid transparent; }
.tabs a[aria-current="page"] { color: var(--text); border-color: var(--accent); }
.copy { position: relative; }
.copy pre { background: var(--panel2); padding: 10px; border-radius: 8px; padding-right: 70px; }
.copy button { position: absolute; top: 6px; right: 6px; font-size: 12px; padding: 2px 8px; }
.notice { padding: 8px 12px; border-radius: 8px; background: var(--info-bg); color: var(--info); margin-bottom: 10px; }
.notice.bad { background: var(--bad-bg); color: var(--bad); }
.notice.warn { background: var(--warn-bg); color: var(--warn); }
.empty { padding: 16px; color: var(--muted); text-align: center; }
.more { padding: 8px 10px; }

dialog { border: 1px solid var(--border); border-radius: 12px; background: var(--panel); color: var(--text); padding: 0; width: min(640px, 94vw); max-height: 90vh; }
dialog::backdrop { background: rgba(0, 0, 0, .45); }
dialog form, dialog .dialog-body { padding: 16px; overflow: auto; max-height: calc(90vh - 20px); }
dialog h2 { margin-top: 0; }
#toasts { position: fixed; right: 16px; bottom: 16px; display: flex; flex-direction: column; gap: 8px; z-index: 20; }
.toast { background: var(--panel); border: 1px solid var(--border); border-left: 4px solid var(--ok); padding: 8px 12px; border-radius: 8px;
  box-shadow: 0 4px 16px rgba(0, 0, 0, .15); max-width: 420px; }
.toast.bad { border-left-color: var(--bad); }

@media (max-width: 1400px) {
  .hide-mid { display: none; }
}
@media (max-width: 1100px) {
  .panes { grid-template-columns: minmax(160px, 1fr) minmax(0, 2fr); }
  .panes > .pane:last-child { grid-column: 1 / -1; }
  .split { grid-template-columns: minmax(0, 1fr); }
}
@media (max-width: 720px) {
  main { padding: 10px; }
  .panes { grid-template-columns: minmax(0, 1fr); }
  .top { gap: 8px; }
  .hide-narrow { display: none; }
  .toolbar input[type="search"] { min-width: 0; width: 100%; }
}
"""#
}
