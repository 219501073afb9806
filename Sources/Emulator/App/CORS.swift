import EmulatorCore
import EmulatorHTTP

/// CORS answers under the `BrowserPolicy`: the origin is echoed (with credentials, as the Firebase
/// emulators do, so web apps on any local dev port work, and as the JS SDK's credentialed
/// WebChannel requests require) only for origins the policy lets read the
/// route: local development origins for the client APIs, the emulator's own origin and allowed
/// origins for everything. Preflights from other origins are refused with 403 and no CORS headers,
/// so the browser never sends the request.
enum CORS {
    /// A preflight answer for `OPTIONS` requests that carry `Access-Control-Request-Method`.
    static func preflight(for request: HTTPRequest, policy: BrowserPolicy, controlPlane: Bool) -> HTTPResponse? {
        guard request.method == "OPTIONS", request.headers["Access-Control-Request-Method"] != nil else { return nil }
        if let origin = request.headers["Origin"], !policy.corsAllowed(origin: origin, host: request.headers["Host"], controlPlane: controlPlane) {
            return ErrorResponder.response(
                for: BrowserPolicy.forbidden(
                    "Cross-origin requests from '\(origin)' to \(request.path) are not allowed"
                        + (controlPlane
                            ? ": the control plane answers only the emulator's own UI and origins allowed with --allowed-origin."
                            : ": allow the origin with --allowed-origin.")))
        }
        var r = HTTPResponse(status: 204)
        r.headers.set("Access-Control-Allow-Methods", "GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS")
        if let h = request.headers["Access-Control-Request-Headers"] { r.headers.set("Access-Control-Allow-Headers", h) }
        if request.headers["Access-Control-Request-Private-Network"]?.lowercased() == "true" {
            r.headers.set("Access-Control-Allow-Private-Network", "true")
        }
        r.headers.set("Access-Control-Max-Age", "86400")
        return r  // the origin headers are added by `apply`, as for every response
    }

    /// Adds the origin headers to the response of a cross-origin request the policy lets read it.
    static func apply(to response: inout HTTPResponse, for request: HTTPRequest, policy: BrowserPolicy, controlPlane: Bool) {
        guard let origin = request.headers["Origin"] else { return }
        response.headers.add("Vary", "Origin")
        guard policy.corsAllowed(origin: origin, host: request.headers["Host"], controlPlane: controlPlane) else { return }
        response.headers.set("Access-Control-Allow-Origin", origin)
        response.headers.set("Access-Control-Allow-Credentials", "true")
        // A WebChannel handshake's session id header must be readable by the page (the client
        // echoes it as `gsessionid`); WebChannel requests are credentialed, hence the echo above
        // and never `*` (with `*` the browser fails every channel request).
        if response.headers["X-HTTP-Session-Id"] != nil {
            response.headers.set("Access-Control-Expose-Headers", "X-HTTP-Session-Id, X-Client-Wire-Protocol")
        }
    }
}
