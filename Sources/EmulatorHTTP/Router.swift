import EmulatorCore

/// A route handler: decode, call one service function, encode. Errors are thrown and turned
/// into responses by the one error mapper in `Emulator`.
public typealias RouteHandler = @Sendable (HTTPRequest, RouteMatch) async throws -> HTTPResponse

/// A route's answer on the event loop's own thread (`HTTPInlineResponder`): only for what cannot
/// block (no waiting on a lock, no I/O, no sleep). Returns nil to leave the request to the route's
/// `RouteHandler`, which must then answer it the same way.
public typealias InlineRouteHandler = @Sendable (HTTPRequest, RouteMatch) throws -> HTTPResponse?

/// Method + path template → handler. Built once at start-up, then only read (hence a value type).
///
/// Resolution picks the most specific matching template (literal segments win over patterns),
/// so routes of different services share one port without colliding.
public struct Router: Sendable {
    /// A class so that scanning candidates retains one reference rather than copying every field.
    final class Route: Sendable {
        let method: String
        let template: PathTemplate
        let handler: RouteHandler
        /// The same answer without suspending, for the requests it can give it to (`inline`).
        let inline: InlineRouteHandler?
        /// Registration order, the tie-breaker between equally specific routes.
        let order: Int
        /// `template.specificity`, computed once.
        let specificity: [Int]

        init(method: String, template: PathTemplate, handler: @escaping RouteHandler, inline: InlineRouteHandler?, order: Int) {
            self.method = method
            self.template = template
            self.handler = handler
            self.inline = inline
            self.order = order
            specificity = template.specificity
        }
    }

    private var routes: [Route] = []
    /// The routes by template segment: the ones a path matches, found in one walk.
    private var trie = RouteTrie()

    /// Creates an empty router.
    public init() {}

    /// Registers `handler` for `method` (uppercase) on `template`.
    public mutating func add(_ method: String, _ template: String, _ handler: @escaping RouteHandler) {
        add(method, template, inline: nil, handler)
    }

    /// Registers `handler` for `method` on `template`, with `inline` answering on the event loop
    /// the requests it can (see `InlineRouteHandler`).
    public mutating func add(_ method: String, _ template: String, inline: InlineRouteHandler?, _ handler: @escaping RouteHandler) {
        let route = Route(method: method.uppercased(), template: PathTemplate(template), handler: handler, inline: inline, order: routes.count)
        trie.insert(route.template, route: routes.count)
        routes.append(route)
    }

    /// Registers a GET route.
    public mutating func get(_ template: String, _ handler: @escaping RouteHandler) { add("GET", template, handler) }
    /// Registers a GET route with an inline answer for the requests that allow one.
    public mutating func get(_ template: String, inline: @escaping InlineRouteHandler, _ handler: @escaping RouteHandler) {
        add("GET", template, inline: inline, handler)
    }
    /// Registers a POST route.
    public mutating func post(_ template: String, _ handler: @escaping RouteHandler) { add("POST", template, handler) }
    /// Registers a PUT route.
    public mutating func put(_ template: String, _ handler: @escaping RouteHandler) { add("PUT", template, handler) }
    /// Registers a PATCH route.
    public mutating func patch(_ template: String, _ handler: @escaping RouteHandler) { add("PATCH", template, handler) }
    /// Registers a DELETE route.
    public mutating func delete(_ template: String, _ handler: @escaping RouteHandler) { add("DELETE", template, handler) }

    /// The outcome of looking a request up.
    public enum Resolution: Sendable {
        /// A handler and what its template captured.
        case found(RouteHandler, RouteMatch)
        /// The path exists, but not for this method; lists the methods that would work.
        case methodNotAllowed([String])
        /// No template matches the path.
        case notFound
    }

    /// The routes whose template matches `path`, found by testing every template (what the trie
    /// must agree with; for tests).
    func scanMatching(_ path: RequestPath) -> Set<Int> { Set(routes.indices.filter { routes[$0].template.matches(path) }) }

    /// The routes the trie finds for `path` (for tests).
    func trieMatching(_ path: RequestPath) -> [Int] { trie.matching(path) }

    /// Every registered (method, template) pair, for listings and the OpenAPI document.
    public var table: [(method: String, template: String)] { routes.map { ($0.method, $0.template.description) } }

    /// Finds the most specific route for `method` and the raw `path`. HEAD falls back to GET and
    /// method `*` routes accept any method. When a more specific template matches the path under
    /// another method, the answer is 405 rather than a less specific route (so `POST
    /// /emulator/v1/status` is not handed to the catch-all functions route).
    /// The path is normalized first (`RequestPath.normalized`); a path that cannot be is not found.
    public func resolve(method: String, path: String) -> Resolution {
        guard case .success(let request) = RequestPath.normalized(path) else { return .notFound }
        return resolve(method: method, path: request)
    }

    /// Resolves an already normalized path: the form the caller's own policy decisions read.
    public func resolve(method: String, path request: RequestPath) -> Resolution {
        switch route(method: method, path: request) {
        case .found(let route, let match): return .found(route.handler, match)
        case .methodNotAllowed(let methods): return .methodNotAllowed(methods)
        case .notFound: return .notFound
        }
    }

    /// The inline handler of the route `resolve` picks, with its match; nil when that route has
    /// none (or when the answer is 404 or 405, which the ordinary path gives).
    public func resolveInline(method: String, path request: RequestPath) -> (InlineRouteHandler, RouteMatch)? {
        guard case .found(let route, let match) = route(method: method, path: request), let inline = route.inline else { return nil }
        return (inline, match)
    }

    /// The outcome of a lookup, with the route itself.
    private enum RouteResolution {
        case found(Route, RouteMatch)
        case methodNotAllowed([String])
        case notFound
    }

    private func route(method: String, path request: RequestPath) -> RouteResolution {
        // The usual methods arrive upper-case: no case mapping for them.
        let m = method.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? method : method.uppercased()
        var best: Route?
        var bestOther: [Int]?
        // Every route here matches the path; the chosen one captures once, at the end.
        let matching = trie.matching(request)
        for index in matching {
            let route = routes[index]
            let score = route.specificity
            // Methods compared lengths first (`==` on unequal strings takes the slow path).
            let methodOK = route.method.isHeaderName(m) || route.method == "*" || (m == "HEAD" && route.method == "GET")
            guard methodOK else {
                if let b = bestOther, !b.lexicographicallyPrecedes(score) { continue }
                bestOther = score
                continue
            }
            if let b = best {
                let bs = b.specificity
                // Strictly more specific wins; on a tie the earlier registration does.
                guard bs.lexicographicallyPrecedes(score) || (bs == score && route.order < b.order) else { continue }
            }
            best = route
        }
        if let best {
            if let bestOther, best.specificity.lexicographicallyPrecedes(bestOther) {
                return .methodNotAllowed(otherMethods(matching, m))
            }
            if let match = best.template.match(request) { return .found(best, match) }
        }
        if bestOther != nil { return .methodNotAllowed(otherMethods(matching, m)) }
        return .notFound
    }

    /// The methods of the matching routes that `method` does not reach, sorted, each once: only
    /// collected for a 405 (a GET matches routes of other methods on every request).
    private func otherMethods(_ matching: [Int], _ method: String) -> [String] {
        var out: [String] = []
        for index in matching {
            let m = routes[index].method
            let reached = m.isHeaderName(method) || m == "*" || (method == "HEAD" && m == "GET")
            if !reached && !out.contains(m) { out.append(m) }
        }
        return out.sorted()
    }
}
