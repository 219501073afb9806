extension UIAssets {
    /// The app shell: served for `/ui/...` and `/`. Holds no data; the scripts render the page
    /// the URL names. No inline script or style (the Content-Security-Policy forbids them).
    static let indexHTML = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Emulator</title>
<link rel="icon" href="/ui/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/assets/app.css">
<script src="/ui/assets/core.js" defer></script>
<script src="/ui/assets/widgets.js" defer></script>
<script src="/ui/assets/values.js" defer></script>
<script src="/ui/assets/overview.js" defer></script>
<script src="/ui/assets/auth.js" defer></script>
<script src="/ui/assets/firestore.js" defer></script>
<script src="/ui/assets/requests.js" defer></script>
<script src="/ui/assets/functions.js" defer></script>
<script src="/ui/assets/control.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/ui/" data-nav>
    <img src="/ui/assets/favicon.svg" alt="" width="20" height="20"><span>Emulator</span>
  </a>
  <nav id="nav" aria-label="Pages"></nav>
  <div class="top-right">
    <label class="picker">Project <select id="project" aria-label="Project"></select></label>
    <button id="theme" type="button" class="ghost" aria-label="Switch between light and dark theme" title="Switch theme">◐</button>
  </div>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
<div id="toasts" role="status" aria-live="polite"></div>
<noscript>The emulator UI needs JavaScript. The control plane is documented at /emulator/v1/openapi.json.</noscript>
</body>
</html>
"""#

    /// The icon: a diamond, readable in both themes.
    static let faviconSVG = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="6" y="6" width="20" height="20" rx="3" transform="rotate(45 16 16)" fill="#f59e0b"/><rect x="11" y="11" width="10" height="10" rx="2" transform="rotate(45 16 16)" fill="#1e293b"/></svg>
"""#
}
