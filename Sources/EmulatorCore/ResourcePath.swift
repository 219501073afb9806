/// A slash-separated resource name split into segments, e.g.
/// `projects/p/databases/(default)/documents/tasks/t1`. Segments are already percent-decoded.
public struct ResourcePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The segments, none empty.
    public var segments: [String]

    /// Creates a path from segments.
    public init(_ segments: [String]) { self.segments = segments }

    /// Splits `text` on `/`; returns nil when any segment is empty (`a//b`, leading or trailing `/`).
    public init?(parsing text: String) {
        if text.isEmpty {
            self.segments = []
            return
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.contains(where: \.isEmpty) { return nil }
        self.segments = parts
    }

    /// Number of segments.
    public var count: Int { segments.count }
    /// The last segment (empty path: "").
    public var lastSegment: String { segments.last ?? "" }
    /// The path without its last segment.
    public var parent: ResourcePath { ResourcePath(Array(segments.dropLast())) }
    /// This path with more segments appended.
    public func appending(_ more: String...) -> ResourcePath { ResourcePath(segments + more) }
    /// This path with another path's segments appended.
    public func appending(_ other: ResourcePath) -> ResourcePath { ResourcePath(segments + other.segments) }
    /// True when `self` starts with all of `prefix`'s segments.
    public func hasPrefix(_ prefix: ResourcePath) -> Bool {
        prefix.segments.count <= segments.count && Array(segments.prefix(prefix.segments.count)) == prefix.segments
    }
    /// Segments joined with `/`.
    public var description: String { segments.joined(separator: "/") }

    /// Segment-wise order (Firestore orders document names segment by segment).
    public static func < (a: ResourcePath, b: ResourcePath) -> Bool {
        for (x, y) in zip(a.segments, b.segments) where x != y { return x.utf8.lexicographicallyPrecedes(y.utf8) }
        return a.segments.count < b.segments.count
    }
}
