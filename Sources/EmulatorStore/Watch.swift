import EmulatorCore

/// What a real-time listener watches: a query or a fixed set of documents.
public enum WatchSpec: Sendable {
    /// A query under `parent` (database-relative document path; "" = the root).
    case query(parent: String, StructuredQuery)
    /// These documents (database-relative paths), whether or not they exist.
    case documents([String])
}

/// One document's change as one listener session sees it at one commit: the targets it is in
/// now and the targets it has left.
public struct WatchDelta: Sendable, Equatable {
    /// Database-relative path.
    public var path: String
    /// The document now; nil when it was deleted (or, for `removedTargets` only, left the query).
    public var document: Document?
    /// Targets of the session the document is in after the change (it changed for them).
    public var targets: [Int32]
    /// Targets of the session the document has left.
    public var removedTargets: [Int32]
    /// The document no longer exists.
    public var deleted: Bool
}

/// What a listener session is told, in commit order. Events for one session never interleave:
/// they are produced under the database lock.
public enum WatchEvent: Sendable {
    /// A target was added (or resumed). `documents` is the full result when `reset` or when the
    /// target was not resumed; after a resume it is what changed since the resume point, and
    /// `removed` what left. `count` is the size of the full result now (for existence filters).
    case added(target: Int32, reset: Bool, resumed: Bool, documents: [Document], removed: [String], count: Int, readTime: Timestamp)
    /// A commit (or a reset, restore or import) changed what this session's targets see.
    case changed(readTime: Timestamp, deltas: [WatchDelta])
    /// The target could not be added (rules, bad query); it is gone.
    case failed(target: Int32, EmulatorError)
    /// The target was removed at the session's request (or because it was `once`).
    case removed(target: Int32)
}

/// Receives a session's events. Called inside the database lock, in commit order: it must only
/// enqueue (never block, never call the store).
public protocol WatchSink: AnyObject, Sendable {
    /// Queues one event.
    func deliver(_ event: WatchEvent)
}

/// A resume point: where a listener was, as an opaque token. The token names this store instance
/// (tokens from another emulator process, or from before a reset of history, mean "start over")
/// and the read time of the snapshot the client holds.
public struct WatchResumePoint: Sendable, Equatable {
    /// The store instance that issued it.
    public var epoch: UInt64
    /// The read time the client's view is consistent at.
    public var readTime: Timestamp

    /// Creates a resume point.
    public init(epoch: UInt64, readTime: Timestamp) {
        self.epoch = epoch
        self.readTime = readTime
    }

    static let magic: [UInt8] = [0x66, 0x65, 0x01]  // "fe", version 1

    /// The opaque token bytes.
    public var token: [UInt8] {
        var out = Self.magic
        for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: epoch >> UInt64(s))) }
        let micros = UInt64(bitPattern: readTime.microseconds)
        for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: micros >> UInt64(s))) }
        return out
    }

    /// Parses a token; nil for anything this store did not issue (a foreign or damaged token).
    public init?(token: [UInt8]) {
        guard token.count == 19, Array(token.prefix(3)) == Self.magic else { return nil }
        var e: UInt64 = 0, m: UInt64 = 0
        for b in token[3..<11] { e = e << 8 | UInt64(b) }
        for b in token[11..<19] { m = m << 8 | UInt64(b) }
        epoch = e
        readTime = Timestamp(microseconds: Int64(bitPattern: m))
    }
}
