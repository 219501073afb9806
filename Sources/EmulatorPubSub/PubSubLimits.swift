/// How much one subscription may hold unacknowledged, and one project's snapshots. Publishing to a topic whose subscription is
/// full is refused (RESOURCE_EXHAUSTED), and dead letters bound for a full subscription stay on
/// their source, so no path (a publish, or a dead-letter topic that feeds subscriptions dead
/// lettering into it) grows a backlog past these. Injected so tests can reach them cheaply.
public struct PubSubLimits: Sendable, Equatable {
    /// The most unacknowledged messages one subscription holds.
    public var maxMessages: Int
    /// The most bytes of unacknowledged messages one subscription holds.
    public var maxBytes: Int

    /// The most snapshots one project holds (each copies its subscription's backlog).
    public var maxSnapshots: Int
    /// The most messages one project's snapshots hold together.
    public var maxSnapshotMessages: Int

    /// Creates limits.
    public init(maxMessages: Int, maxBytes: Int, maxSnapshots: Int = 1000, maxSnapshotMessages: Int = 1_000_000) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
        self.maxSnapshots = maxSnapshots
        self.maxSnapshotMessages = maxSnapshotMessages
    }

    /// The emulator's limits: 500,000 messages or 256 MiB per subscription; 1,000 snapshots
    /// holding at most 1,000,000 messages together per project.
    public static let standard = PubSubLimits(maxMessages: 500_000, maxBytes: 256 << 20)
}
