/// How much one subscription may hold unacknowledged, all of one project's subscriptions
/// together, and one project's snapshots. Publishing to a topic whose subscription is full, or
/// whose fan-out would take its project past the project budget, is refused (RESOURCE_EXHAUSTED)
/// before anything is stored; dead letters that do not fit stay on their source, and a seek that
/// would not fit is refused, so no path (a publish, a dead-letter topic that feeds subscriptions
/// dead lettering into it, a seek) grows a backlog or a project past these. Imports and restores
/// are taken whole (they hold what was acknowledged before; publishes are refused until there is
/// room). Acknowledged messages a subscription retains for seek are bounded by the same figures,
/// counted apart: past them the oldest are dropped, nothing is refused (`PubSubBacklog.
/// RetainRoom`). Injected so tests can reach them cheaply.
public struct PubSubLimits: Sendable, Equatable {
    /// The most unacknowledged messages one subscription holds.
    public var maxMessages: Int
    /// The most bytes of unacknowledged messages one subscription holds.
    public var maxBytes: Int

    /// The most snapshots one project holds (each copies its subscription's backlog).
    public var maxSnapshots: Int
    /// The most messages one project's snapshots hold together.
    public var maxSnapshotMessages: Int

    /// The most unacknowledged message entries all subscriptions of one project hold together
    /// (`limits.pubsubMaxProjectMessages` in emulator.json). A message is one entry in each
    /// subscription it reaches: the payload is shared, but each entry costs about 195 bytes
    /// (measured: 2,000 subscriptions took 4.1 GB for 22 million entries), so without this
    /// limit a topic with 2,000 subscriptions grew by about 370 MB per publish of 1,000 messages.
    public var maxProjectMessages: Int
    /// The most bytes those entries hold together, each counting its message's size as
    /// `maxBytes` does, so a fanned-out payload counts once per subscription
    /// (`limits.pubsubMaxProjectBytes`).
    public var maxProjectBytes: Int

    /// Creates limits.
    public init(
        maxMessages: Int, maxBytes: Int, maxSnapshots: Int = 1000, maxSnapshotMessages: Int = 1_000_000,
        maxProjectMessages: Int = 5_000_000, maxProjectBytes: Int = 1 << 30
    ) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
        self.maxSnapshots = maxSnapshots
        self.maxSnapshotMessages = maxSnapshotMessages
        self.maxProjectMessages = maxProjectMessages
        self.maxProjectBytes = maxProjectBytes
    }

    /// The emulator's limits: 500,000 messages or 256 MiB per subscription; 5,000,000 entries or
    /// 1 GiB per project (ten subscriptions at their own limit: about 1 GB of entries, which no
    /// app under test reaches, and what one client can make a project hold); 1,000 snapshots
    /// holding at most 1,000,000 messages together per project.
    public static let standard = PubSubLimits(maxMessages: 500_000, maxBytes: 256 << 20)

    /// The project budget as refusals name it, with the keys that raise it.
    var projectBudgetText: String {
        "\(maxProjectMessages) messages or \(maxProjectBytes) bytes per project: limits.pubsubMaxProjectMessages and limits.pubsubMaxProjectBytes in emulator.json"
    }
}
