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
        segments = body.isEmpty ? [] : body.split(separator: "/", omittingEmptySubsequences: false).map { seg in
            if seg.hasPrefix("{"), seg.hasSuffix("}") {
                let inner = seg.dropFirst().dropLast()
                if let eq = inner.firstIndex(of: "=") {
                    precondition(inner[inner.index(after: eq)...] == "**", "only {name=**} wildcards are supported: \(text)")
                    return .wildcard(String(inner[..<eq]))
                }
                return .parameter(String(inner))
            }
            return .literal(String(seg))
        }
        precondition(segments.enumerated().allSatisfy { i, s in
            if case .wildcard = s { return i == segments.count - 1 }
            return true
        }, "a {name=**} wildcard must be the last segment: \(text)")
    }

    /// How specific the template is: literals beat parameters beat wildcards, segment by segment,
    /// so `/emulator/v1/status` wins over `/{project}/{region}/{name}`.
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
        var raw = rawSegments
        if let verb {
            guard let last = raw.last, last.hasSuffix(":" + verb) else { return nil }
            let base = last.dropLast(verb.utf8.count + 1)
            raw[raw.count - 1] = base
            if base.isEmpty {
                // `documents:commit` style needs a base; a bare `:verb` segment never matches.
                return nil
            }
        }
        var params: [String: String] = [:]
        var wildcardSegments: [String: [String]] = [:]
        var i = 0
        for (k, seg) in segments.enumerated() {
            switch seg {
            case .literal(let lit):
                guard i < raw.count, let d = PercentEncoding.decode(String(raw[i])), d == lit else { return nil }
                i += 1
            case .parameter(let name):
                guard i < raw.count, !raw[i].isEmpty, !raw[i].contains(":"),
                      let d = PercentEncoding.decode(String(raw[i])) else { return nil }
                params[name] = d
                i += 1
            case .wildcard(let name):
                precondition(k == segments.count - 1)
                guard i < raw.count else { return nil }
                var decoded: [String] = []
                for r in raw[i...] {
                    guard !r.isEmpty, let d = PercentEncoding.decode(String(r)) else { return nil }
                    decoded.append(d)
                }
                params[name] = decoded.joined(separator: "/")
                wildcardSegments[name] = decoded
                i = raw.count
            }
        }
        guard i == raw.count else { return nil }
        return RouteMatch(template: self, params: params, wildcardSegments: wildcardSegments)
    }
}

/// What a matched route captured.
public struct RouteMatch: Sendable {
    /// The template that matched.
    public let template: PathTemplate
    /// Captured values, percent-decoded; wildcards are their decoded segments joined with `/`.
    public let params: [String: String]
    /// Wildcard captures as separate decoded segments (a `%2F` inside a segment stays inside it).
    public let wildcardSegments: [String: [String]]

    /// The captured value called `name` ("" when absent).
    public subscript(_ name: String) -> String { params[name] ?? "" }
}
