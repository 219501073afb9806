/// How much one subscription may hold unacknowledged. Publishing to a topic whose subscription is
/// full is refused (RESOURCE_EXHAUSTED), and dead letters bound for a full subscription stay on
/// their source, so no path (a publish, or a dead-letter topic that feeds subscriptions dead
/// lettering into it) grows a backlog past these. Injected so tests can reach them cheaply.
public struct PubSubLimits: Sendable, Equatable {
    /// The most unacknowledged messages one subscription holds.
    public var maxMessages: Int
    /// The most bytes of unacknowledged messages one subscription holds.
    public var maxBytes: Int

    /// Creates limits.
    public init(maxMessages: Int, maxBytes: Int) {
        self.maxMessages = maxMessages
        self.maxBytes = maxBytes
    }

    /// The emulator's limits: 500,000 messages or 256 MiB per subscription.
    public static let standard = PubSubLimits(maxMessages: 500_000, maxBytes: 256 << 20)
}
