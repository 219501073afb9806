/// How many frames of one kind an HTTP/2 peer may send (`HTTP2FloodGuard`): a burst at once,
/// then a steady number per second.
public struct HTTP2FloodRate: Sendable, Equatable {
    /// How many may come at once.
    public var burst: Int
    /// How many more are allowed per second after that.
    public var perSecond: Int
    /// Creates a rate.
    public init(burst: Int, perSecond: Int) {
        self.burst = burst
        self.perSecond = perSecond
    }
}
