import EmulatorCore

/// One change of a project's documents, for consumers that follow everything (the web UI's live
/// view): a commit (the paths it changed) or a wholesale replacement (reset, restore, import).
public struct StoreFeedEvent: Sendable, Equatable {
    /// Project and database.
    public var project: String, database: String
    /// The commit (or replacement) time.
    public var time: Timestamp
    /// Database-relative paths of the changed documents (empty for a replacement).
    public var paths: [String]
    /// The whole database was replaced: every view of it is stale.
    public var replaced: Bool
}

/// Follows a project's changes. Called inside the database lock, in commit order: it must only
/// enqueue (never block, never call the store).
public protocol StoreFeedSink: AnyObject, Sendable {
    /// One change.
    func storeChanged(_ event: StoreFeedEvent)
}

extension StoreService {
    /// Starts delivering every change of `project` to `sink` (until `unsubscribe`). The same
    /// ordered history the listeners see, without their per-target work.
    public func subscribe(project: String, _ sink: any StoreFeedSink) {
        hooks.withLock { $0.feed[ObjectIdentifier(sink)] = FeedEntry(project: project, sink: sink) }
    }

    /// Stops delivering to `sink`.
    public func unsubscribe(_ sink: any StoreFeedSink) {
        _ = hooks.withLock { $0.feed.removeValue(forKey: ObjectIdentifier(sink)) }
    }

    /// Delivers an event to the project's subscribers (inside the database lock).
    static func publishFeed(_ hooks: Hooks, _ event: StoreFeedEvent) {
        for entry in hooks.feed.values where entry.project == event.project { entry.sink.storeChanged(event) }
    }
}

/// A feed subscriber and the project it follows.
struct FeedEntry: Sendable {
    var project: String
    var sink: any StoreFeedSink
}
