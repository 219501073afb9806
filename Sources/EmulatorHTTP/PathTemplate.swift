/// A route path template: literal segments, `{name}` (one segment), `{name=**}` (one or more
/// segments) and an optional trailing `:verb` on the last segment, as in Google API HTTP rules
/// (`/v1/{parent=projects/*}/accounts:signUp` style, simplified to what the emulator needs).
public struct PathTemplate: Sendable, Equatable, CustomStringConvertible {
    /// One template segment.
    public enum Segment: Sendable, Equatable {
        /// Must equal this (percent-decoded) text.
        case literal(String)
        /// Captures exactly one segment that contains no `:`.
        case parameter(String)
        /// Captures one or more segments (may contain `:`).
        case wildcard(String)
    }

    /// The segments, in order.
    public let segments: [Segment]
    /// The custom verb after the last segment (`signUp` in `accounts:signUp`), if any.
    public let verb: String?
    /// The source text.
    public let description: String

    /// Parses a template such as `/v1/projects/{project}/databases/{database}/documents/{path=**}:runQuery`.
    public init(_ text: String) {
        description = text
        var body = Substring(text)
        if body.hasPrefix("/") { body = body.dropFirst() }
        var parsedVerb: String?
        if let colon = body.lastIndex(of: ":"), !body[colon...].contains("}"), !body[colon...].contains("/") {
            parsedVerb = String(body[body.index(after: colon)...])
            body = body[..<colon]
        }
        verb = parsedVerb
        segments =
            body.isEmpty
            ? []
            : body.split(separator: "/", omittingEmptySubsequences: false).map { seg in
                if seg.hasPrefix("{"), seg.hasSuffix("}") {
                    let inner = seg.dropFirst().dropLast()
                    if let eq = inner.firstIndex(of: "=") {
                        precondition(inner[inner.index(after: eq)...] == "**", "only {name=**} wildcards are supported: \(text)")  // trap-ok: templates are constants registered at start-up
                        return .wildcard(String(inner[..<eq]))
                    }
                    return .parameter(String(inner))
                }
                return .literal(String(seg))
            }
        // trap-ok below: templates are constants registered at start-up.
        precondition(  // trap-ok: templates are constants registered at start-up
            segments.enumerated().allSatisfy { i, s in
                if case .wildcard = s { return i == segments.count - 1 }
                return true
            }, "a {name=**} wildcard must be the last segment: \(text)")
    }

    /// How specific the template is: literals beat parameters beat wildcards, segment by segment,
    /// so `/emulator/v1/status` wins over `/{project}/{region}/{name}`. Computed once: the router
    /// compares it for every route a request matches.
    var specificity: [Int] {
        segments.map { s -> Int in
            switch s {
            case .literal: return 3
            case .parameter: return 2
            case .wildcard: return 1
            }
        } + [verb == nil ? 0 : 1]
    }

    /// Matches raw (still percent-encoded) path segments. Returns captured, decoded values, or nil.
    func match(rawSegments: [Substring]) -> RouteMatch? {
        match(RequestPath(rawSegments))
    }

    /// Matches a request path whose segments were split and decoded once for all templates.
    func match(_ path: RequestPath) -> RouteMatch? { match(path, capture: true) }

    /// Whether the path matches, without collecting what the template captures: the reference the
    /// router's `RouteTrie` is tested against (the router itself captures once, for the route it
    /// picks).
    func matches(_ path: RequestPath) -> Bool { match(path, capture: false) != nil }

    /// Matches; with `capture` false the answer's captures are left empty (the same paths match).
    private func match(_ path: RequestPath, capture: Bool) -> RouteMatch? {
        let count = path.raw.count
        // The cheapest rejection first: the segment count. A wildcard, always last, takes one or
        // more segments.
        if case .wildcard = segments.last {
            guard count >= segments.count else { return nil }
        } else {
            guard count == segments.count else { return nil }
        }
        // With a verb, the last segment is matched without its `:verb` suffix.
        var lastDecoded: String??
        if let verb {
            guard let last = path.raw.last, last.utf8.count > verb.utf8.count + 1, last.hasSuffixBytes(verb) else { return nil }
            // `documents:commit` style needs a base; a bare `:verb` segment never matches (the
            // length check above).
            let base = last.dropLast(verb.utf8.count + 1)
            lastDecoded = .some(PercentEncoding.decode(String(base)))
        }
        @inline(__always) func raw(_ i: Int) -> Substring {
            if lastDecoded != nil, i == count - 1, let verb { return path.raw[i].dropLast(verb.utf8.count + 1) }
            return path.raw[i]
        }
        @inline(__always) func decoded(_ i: Int) -> String? {
            if let lastDecoded, i == count - 1 { return lastDecoded }
            return path.decoded[i]
        }
        var params = RouteCaptures<String>(capacity: capture ? segments.count : 0)
        var wildcardSegments = RouteCaptures<[String]>()
        var i = 0
        for seg in segments {
            switch seg {
            case .literal(let lit):
                guard i < count, let d = decoded(i), d == lit else { return nil }
                i += 1
            case .parameter(let name):
                guard i < count else { return nil }
                let r = raw(i)
                let colon = lastDecoded != nil && i == count - 1 ? r.utf8.contains(UInt8(ascii: ":")) : path.hasColon(i)
                guard !r.isEmpty, !colon, let d = decoded(i) else { return nil }
                if capture { params.set(name, d) }
                i += 1
            case .wildcard(let name):
                guard i < count else { return nil }
                guard capture else {
                    for k in i..<count { guard !raw(k).isEmpty, decoded(k) != nil else { return nil } }
                    i = count
                    continue
                }
                var parts: [String] = []
                parts.reserveCapacity(count - i)
                for k in i..<count {
                    guard !raw(k).isEmpty, let d = decoded(k) else { return nil }
                    parts.append(d)
                }
                params.set(name, parts.joined(separator: "/"))
                wildcardSegments.set(name, parts)
                i = count
            }
        }
        guard i == count else { return nil }
        return RouteMatch(template: self, params: params, wildcardSegments: wildcardSegments)
    }
}

extension Substring {
    /// Whether the text ends with `:` followed by `verb`, compared byte by byte (String's generic
    /// `hasSuffix` walks grapheme clusters and showed up in profiles).
    func hasSuffixBytes(_ verb: String) -> Bool {
        let u = utf8, v = verb.utf8
        guard u.count > v.count else { return false }
        var i = u.index(u.endIndex, offsetBy: -(v.count + 1))
        guard u[i] == UInt8(ascii: ":") else { return false }
        i = u.index(after: i)
        return u[i...].elementsEqual(v)
    }
}

/// What a matched route captured.
public struct RouteMatch: Sendable {
    /// The template that matched.
    public let template: PathTemplate
    /// Captured values, percent-decoded; wildcards are their decoded segments joined with `/`.
    public let params: RouteCaptures<String>
    /// Wildcard captures as separate decoded segments (a `%2F` inside a segment stays inside it).
    public let wildcardSegments: RouteCaptures<[String]>

    /// The captured value called `name` ("" when absent).
    public subscript(_ name: String) -> String { params[name] ?? "" }
}

/// What a route's template captured, by name. A short list searched in order, not a dictionary:
/// a template names a few segments, and a document GET built and read its captures with 22
/// string hashes (about 7,000 instructions). A value type, built per request.
public struct RouteCaptures<Value: Sendable>: Sendable, Sequence {
    private var entries: [(key: String, value: Value)] = []

    /// Creates an empty list with room for `capacity` captures.
    init(capacity: Int = 0) { entries.reserveCapacity(capacity) }

    /// The value captured as `name`, or nil.
    public subscript(_ name: String) -> Value? {
        for e in entries where e.key == name { return e.value }
        return nil
    }

    /// Records `value` as `name`, replacing an earlier capture of that name (the last one wins,
    /// as in a dictionary).
    mutating func set(_ name: String, _ value: Value) {
        if let i = entries.firstIndex(where: { $0.key == name }) { entries[i].value = value } else { entries.append((name, value)) }
    }

    /// The captured values, in template order.
    public var values: [Value] { entries.map(\.value) }

    /// The number of captures.
    public var count: Int { entries.count }

    /// Iterates the captures in template order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: Value)]> { entries.makeIterator() }
}
