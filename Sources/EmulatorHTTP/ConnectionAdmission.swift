import EmulatorCore

/// The connections open on every event loop of one server together, against the cap in force
/// (`HTTPServerConfiguration.maxConnections` resolved by `EventLoop.connectionCap`). The accepting
/// loop admits a connection before it hands it out; the loop that owns it releases it when it
/// closes. The count is behind a `Mutex`.
final class ConnectionAdmission: Sendable {
    /// The cap.
    let cap: Int
    private let open = Mutex(0)

    /// Creates an admission of at most `cap` connections.
    init(cap: Int) { self.cap = cap }

    /// Counts a new connection when one more fits; false when the cap is reached.
    func admit() -> Bool {
        open.withLock { n -> Bool in
            guard n < cap else { return false }
            n += 1
            return true
        }
    }

    /// An admitted connection closed.
    func release() { open.withLock { $0 -= 1 } }

    /// Connections open now.
    var count: Int { open.withLock { $0 } }
}
