import EmulatorCore
import EmulatorHTTP

/// The web UI: the app shell for `/ui`, `/ui/` and every `/ui/...` deep link (the page's own
/// script routes, so a reload of any URL works), and the assets under `/ui/assets/{name}`.
/// `GET /` serves the shell too when the browser prefers HTML (`StatusRoutes`). Every answer
/// carries a strict Content-Security-Policy (scripts and styles from the emulator only, no
/// inline code, no framing) so that data shown by the UI can never run as code.
enum UIRoutes {
    /// What the UI may load: only its own assets and its own origin's APIs. `blob:` images are the
    /// Storage page's previews: bytes the page fetched itself (with `Bearer owner`) shown as an
    /// `<img>`, where no script of theirs can run.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func register(_ r: inout Router, _ s: EmulatorServices) {
        r.get("/ui") { req, _ in shell(req) }
        r.get("/ui/") { req, _ in shell(req) }
        r.get("/ui/{rest=**}") { req, _ in shell(req) }
        r.get("/ui/assets/{name}") { req, m in
            guard let asset = UIAssets.all[m["name"]] else {
                throw EmulatorError.notFound("No UI asset '\(m["name"].prefix(60))'.")
            }
            return serve(asset, req)
        }
    }

    /// The app shell (`index.html`).
    static func shell(_ req: HTTPRequest) -> HTTPResponse { serve(UIAssets.index, req) }

    /// An asset with validators and the safety headers; `304` when the browser's copy is current.
    static func serve(_ asset: UIAsset, _ req: HTTPRequest) -> HTTPResponse {
        var r = HTTPResponse(status: 200)
        if req.headers["If-None-Match"] == asset.etag { r.status = 304 } else { r.body = asset.bytes }
        r.headers.set("Content-Type", asset.contentType)
        r.headers.set("ETag", asset.etag)
        r.headers.set("Cache-Control", "no-cache")
        r.headers.set("Content-Security-Policy", contentSecurityPolicy)
        r.headers.set("X-Content-Type-Options", "nosniff")
        r.headers.set("X-Frame-Options", "DENY")
        r.headers.set("Referrer-Policy", "no-referrer")
        return r
    }

    /// True when `Accept` ranks `text/html` above JSON (a browser's navigation; `*/*` from curl
    /// and SDKs keeps the JSON answer).
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept else { return false }
        var html = -1.0, json = -1.0, any = -1.0
        for part in accept.split(separator: ",") {
            let items = part.split(separator: ";").map { String($0).trimming(" \t") }
            guard let type = items.first?.lowercased() else { continue }
            var q = 1.0
            for p in items.dropFirst() where p.lowercased().hasPrefix("q=") { q = Double(p.dropFirst(2)) ?? 0 }
            switch type {
            case "text/html": html = max(html, q)
            case "application/json": json = max(json, q)
            case "*/*": any = max(any, q)
            default: break
            }
        }
        if json < 0 { json = any }
        return html > 0 && html > json
    }
}
