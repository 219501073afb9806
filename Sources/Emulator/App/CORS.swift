import EmulatorHTTP

/// CORS as the Firebase emulators do it: reflect the origin and requested headers, allow every
/// method, and allow private-network access when asked (Chrome's PNA preflight).
enum CORS {
    /// A preflight answer for `OPTIONS` requests that carry `Access-Control-Request-Method`.
    static func preflight(for request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", request.headers["Access-Control-Request-Method"] != nil else { return nil }
        var r = HTTPResponse(status: 204)
        r.headers.set("Access-Control-Allow-Methods", "GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS")
        if let h = request.headers["Access-Control-Request-Headers"] { r.headers.set("Access-Control-Allow-Headers", h) }
        if request.headers["Access-Control-Request-Private-Network"]?.lowercased() == "true" {
            r.headers.set("Access-Control-Allow-Private-Network", "true")
        }
        r.headers.set("Access-Control-Max-Age", "86400")
        return r
    }

    /// Adds the origin headers to any response of a cross-origin request.
    static func apply(to response: inout HTTPResponse, for request: HTTPRequest) {
        guard let origin = request.headers["Origin"] else { return }
        response.headers.set("Access-Control-Allow-Origin", origin)
        response.headers.set("Access-Control-Allow-Credentials", "true")
        response.headers.add("Vary", "Origin")
    }
}
