import EmulatorCore

/// A route handler: decode, call one service function, encode. Errors are thrown and turned
/// into responses by the one error mapper in `Emulator`.
public typealias RouteHandler = @Sendable (HTTPRequest, RouteMatch) async throws -> HTTPResponse

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
        /// Registration order, the tie-breaker between equally specific routes.
        let order: Int
        /// `template.specificity`, computed once.
        let specificity: [Int]

        init(method: String, template: PathTemplate, handler: @escaping RouteHandler, order: Int) {
            self.method = method
            self.template = template
            self.handler = handler
            self.order = order
            specificity = template.specificity
        }
    }

    private var routes: [Route] = []
    /// Routes whose first segment is a literal (and not the verb-carrying last one), by that
    /// literal: a request only tries these for its own first segment, plus `generic`.
    private var byFirstSegment: [String: [Route]] = [:]
    /// Routes that start with a parameter or wildcard, or have at most a verb-carrying segment.
    private var generic: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// Registers `handler` for `method` (uppercase) on `template`.
    public mutating func add(_ method: String, _ template: String, _ handler: @escaping RouteHandler) {
        let route = Route(method: method.uppercased(), template: PathTemplate(template), handler: handler, order: routes.count)
        routes.append(route)
        if case .literal(let first)? = route.template.segments.first,
            route.template.segments.count > 1 || route.template.verb == nil
        {
            byFirstSegment[first, default: []].append(route)
        } else {
            generic.append(route)
        }
    }

    /// Registers a GET route.
    public mutating func get(_ template: String, _ handler: @escaping RouteHandler) { add("GET", template, handler) }
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
        let m = method.uppercased()
        var best: Route?
        var bestOther: [Int]?
        var otherMethods: Set<String> = []
        // Candidates are only tested (`matches`); the chosen route captures once, at the end.
        func consider(_ route: Route) {
            let score = route.specificity
            let methodOK = route.method == m || route.method == "*" || (m == "HEAD" && route.method == "GET")
            guard methodOK else {
                guard route.template.matches(request) else { return }
                otherMethods.insert(route.method)
                if let b = bestOther, !b.lexicographicallyPrecedes(score) { return }
                bestOther = score
                return
            }
            if let b = best {
                let bs = b.specificity
                // Strictly more specific wins; on a tie the earlier registration does. A route
                // that could not win is not tested at all.
                guard bs.lexicographicallyPrecedes(score) || (bs == score && route.order < b.order) else { return }
            }
            guard route.template.matches(request) else { return }
            best = route
        }
        if let firstRaw = request.decoded.first, let first = firstRaw, let candidates = byFirstSegment[first] {
            for route in candidates { consider(route) }
        }
        for route in generic { consider(route) }
        if let best {
            if let bestOther, best.specificity.lexicographicallyPrecedes(bestOther) {
                return .methodNotAllowed(otherMethods.sorted())
            }
            if let match = best.template.match(request) { return .found(best.handler, match) }
        }
        if !otherMethods.isEmpty { return .methodNotAllowed(otherMethods.sorted()) }
        return .notFound
    }
}
