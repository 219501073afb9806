import EmulatorCore
import EmulatorHTTP

/// Browser safety for every request, decided before routing (SECURITY.md, "Browsers"):
///
/// - **Host check** (DNS rebinding): the `Host` header must be a loopback name (`localhost`,
///   `*.localhost`), an IP address literal (no DNS is involved, so it cannot be rebound), the
///   configured `--host`, or an allowed host (`--allowed-host`, `allowedHosts`).
/// - **Control plane** (`/emulator/*` except the OOB action page, and Firestore's `POST /reset`):
///   a browser request (one carrying `Origin` or `Sec-Fetch-Site`) is served only when it comes
///   from this server's own origin or an allowed origin and carries `X-Emulator-UI` (a header a
///   cross-origin page cannot send without a preflight, which is refused), or is a top-level
///   navigation the user made (`Sec-Fetch-Site: none` or same-origin). Simple requests
///   (`text/plain` POSTs, forms) from other sites are refused before any handler runs.
/// - **Client APIs** (Auth, Firestore, functions): cross-origin calls work from local development
///   origins (any scheme and port on `localhost`, `*.localhost`, a loopback address, or the host the
///   request was addressed to) and allowed origins; other origins are refused. An administrator
///   credential (`Bearer owner`, `Bearer ya29.*`) from any cross-origin page is refused unless the
///   origin is allowed.
///
/// Requests without browser headers (SDKs, curl, tests) are not affected by the origin rules.
/// Immutable; built once from the configuration.
struct BrowserPolicy: Sendable {
    /// The header the UI sends on every call (only a same-origin page can send it unprompted).
    static let uiHeader = "X-Emulator-UI"

    /// How an `Origin` relates to this server.
    enum OriginKind: Equatable {
        /// The page was served by this server (scheme, host and port equal the request's).
        case same
        /// Listed in `allowedOrigins`.
        case allowed
        /// A local development server: loopback or the same host name, any port.
        case local
        /// Anything else, `null` included.
        case foreign
    }

    let configuredHost: String
    let allowedHosts: [String]
    let allowedOrigins: Set<String>
    let anyOrigin: Bool
    let anyHost: Bool

    /// Builds the policy; host names and origins are compared case-insensitively.
    init(config: EmulatorConfig) {
        configuredHost = Self.normalizeHost(config.host)
        let hosts = config.allowedHosts.map { Self.normalizeHost($0) }
        anyHost = hosts.contains("*")
        allowedHosts = hosts.filter { $0 != "*" }
        let origins = config.allowedOrigins.map { Self.normalizeOrigin($0) }
        anyOrigin = origins.contains("*")
        allowedOrigins = Set(origins.filter { $0 != "*" })
    }

    /// The refusal of a request addressed to a host this server does not answer to (DNS
    /// rebinding), or nil. A request without `Host` (HTTP/1.0, in-process tests) passes: browsers
    /// always send one.
    func hostRefusal(for request: HTTPRequest) -> EmulatorError? {
        guard let host = request.headers["Host"], !isAllowedHost(host) else { return nil }
        return Self.forbidden(
            "Host '\(host)' is not allowed: this emulator answers only requests addressed to a loopback name or address, its --host, or a host given with --allowed-host (protection against DNS rebinding). If you reach it under this name on purpose, start it with --allowed-host \(Self.hostName(host))."
        )
    }

    /// The refusal of a request under the origin rules, or nil when it may proceed. Preflights are
    /// answered before this (by `CORS.preflight`).
    func refusal(for request: HTTPRequest, controlPlane: Bool) -> EmulatorError? {
        let host = request.headers["Host"]
        let origin = request.headers["Origin"]
        let kind = origin.map { classify(origin: $0, host: host) }
        if controlPlane {
            let site = request.headers["Sec-Fetch-Site"]?.lowercased()
            guard origin != nil || site != nil else { return nil }  // not a browser
            let trusted = kind == .same || kind == .allowed
            if let kind, let origin, !trusted {
                return Self.forbidden(
                    "The control plane (\(request.path)) refuses browser requests from origin '\(origin)' (\(kind == .local ? "a local page of another origin" : "another site")): only the emulator's own UI, or an origin allowed with --allowed-origin, may use it."
                )
            }
            if let site, site != "same-origin", site != "none", kind != .allowed {
                return Self.forbidden(
                    "The control plane (\(request.path)) refuses browser requests made from another site (Sec-Fetch-Site: \(site)).")
            }
            let navigation = (request.method == "GET" || request.method == "HEAD") && request.headers["Sec-Fetch-Mode"]?.lowercased() == "navigate"
            if request.headers[Self.uiHeader] == nil && !navigation {
                return Self.forbidden(
                    "Browser requests to the control plane (\(request.path)) must carry the \(Self.uiHeader) header, as the emulator's UI does.")
            }
            return nil
        }
        guard let origin, let kind else { return nil }
        if kind == .foreign {
            return Self.forbidden(
                "Origin '\(origin)' may not call this emulator: cross-origin requests are accepted from local development origins (localhost, loopback addresses) and origins allowed with --allowed-origin."
            )
        }
        // Storage's SDKs send `Authorization: Firebase <token>`: `Firebase owner` is the same credential.
        if kind == .local, let token = request.bearerToken ?? StorageHTTP.credential(request),
            token.lowercased() == "owner" || token.hasPrefix("ya29.")
        {
            return Self.forbidden(
                "An administrator credential (Bearer owner) from the cross-origin page '\(origin)' is refused: a web page must not bypass Security Rules. Allow the origin with --allowed-origin \(origin) if it is your own tool."
            )
        }
        return nil
    }

    /// Whether a page at `origin` may read answers of the route (CORS headers are added).
    func corsAllowed(origin: String, host: String?, controlPlane: Bool) -> Bool {
        switch classify(origin: origin, host: host) {
        case .same, .allowed: return true
        case .local: return !controlPlane
        case .foreign: return false
        }
    }

    /// How `origin` relates to a request addressed to `host` (the `Host` header).
    func classify(origin: String, host: String?) -> OriginKind {
        let o = Self.normalizeOrigin(origin)
        if let host, o == "http://" + host.lowercased() { return .same }
        if anyOrigin || allowedOrigins.contains(o) { return .allowed }
        guard let schemeEnd = o.firstRange(of: "://") else { return .foreign }  // `null`, garbage
        let authority = String(o[schemeEnd.upperBound...])
        let name = Self.hostName(authority)
        if Self.isLoopbackName(name) { return .local }
        if let host, name == Self.hostName(host.lowercased()) { return .local }
        if name == configuredHost, !Self.isWildcardAddress(configuredHost) { return .local }
        return .foreign
    }

    /// The Host check: loopback names, IP literals, the configured host and allowed hosts.
    func isAllowedHost(_ header: String) -> Bool {
        if Self.isPlainLoopback(header) { return true }
        let name = Self.hostName(header.lowercased())
        if name.isEmpty { return false }
        if anyHost || Self.isLoopbackName(name) || Self.isIPLiteral(name) { return true }
        if name == configuredHost { return true }
        return allowedHosts.contains { entry in
            entry.hasPrefix(".") ? (name.hasSuffix(entry) || name == String(entry.dropFirst())) : name == entry
        }
    }

    /// `127.0.0.1` or `localhost` (any case), each with or without a port: what nearly every
    /// request's `Host` says, recognised byte by byte before the general rules (which allow both
    /// too) lower-case, split and parse it. Over the header's bytes (generic `utf8` slices cost
    /// about 1,900 instructions a request here).
    static func isPlainLoopback(_ header: String) -> Bool {
        header.withUTF8Bytes { b -> Bool in
            // A port is the digits after the last `:` (none at all counts too, as `host:` does).
            var end = b.count
            while end > 0 && isASCIIDigit(b[end - 1]) { end -= 1 }
            if end == 0 || b[end - 1] != UInt8(ascii: ":") { end = b.count } else { end -= 1 }
            return ASCIIBytes.equals(b, 0, end, "127.0.0.1") || ASCIIBytes.equalsIgnoringCase(b, 0, end, "localhost")
        }
    }

    static func forbidden(_ message: String) -> EmulatorError { EmulatorError(.permissionDenied, message) }

    /// The host name of a `Host` header or origin authority (`[::1]:80` → `::1`, `a.b:1` → `a.b`),
    /// lower-cased, without a trailing dot.
    static func hostName(_ authority: String) -> String {
        var a = Substring(authority.lowercased())
        if a.hasPrefix("[") {
            guard let close = a.firstIndex(of: "]") else { return String(a) }
            return String(a[a.index(after: a.startIndex)..<close])
        }
        if let colon = a.lastIndex(of: ":"), a[a.index(after: colon)...].utf8.allSatisfy(isASCIIDigit) { a = a[..<colon] }
        while a.hasSuffix(".") { a = a.dropLast() }
        return String(a)
    }

    /// `localhost`, `*.localhost` (RFC 6761 reserves them for loopback), `127.0.0.0/8`, `::1`.
    static func isLoopbackName(_ name: String) -> Bool {
        name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || (name.hasPrefix("127.") && isIPv4(name))
    }

    /// An IPv4 dotted quad or an IPv6 address (a name with a `:` cannot be a DNS name).
    /// Header values are attacker-controlled: only ASCII counts (`Character.isNumber` and
    /// `isHexDigit` accept superscripts and fullwidth forms, which `Int(_:)` then refuses).
    static func isIPLiteral(_ name: String) -> Bool {
        isIPv4(name) || (name.contains(":") && name.utf8.allSatisfy { isASCIIHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
    }

    /// A dotted quad of ASCII decimal numbers, each at most 255.
    static func isIPv4(_ name: String) -> Bool {
        let parts = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { p in
                !p.isEmpty && p.count <= 3 && p.allSatisfy(isASCIIDigit) && p.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 255
            }
    }

    static func isASCIIDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    static func isASCIIHexDigit(_ b: UInt8) -> Bool {
        isASCIIDigit(b) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"))
    }

    static func isWildcardAddress(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" || host.isEmpty }

    static func normalizeHost(_ h: String) -> String { h == "*" ? "*" : (h.hasPrefix(".") ? "." + hostName(String(h.dropFirst())) : hostName(h)) }

    /// Lower-cased, without a trailing slash (`http://LocalHost:3000/` → `http://localhost:3000`).
    static func normalizeOrigin(_ o: String) -> String {
        var s = o.lowercased().trimming(" \t")
        while s.hasSuffix("/") { s.removeLast() }
        return s
    }
}
