import EmulatorCore

/// Where each service is reachable, filled in once the listeners are bound (so port 0 reports
/// the real port). Behind a `Mutex`: written once at start, read by status routes.
public final class ServiceDirectory: Sendable {
    private let state: Mutex<(addresses: [String: ServiceAddress], version: UInt64)> = Mutex(([:], 0))

    /// Creates an empty directory.
    public init() {}

    /// Records the bound addresses.
    public func set(_ addresses: [ServiceAddress]) {
        state.withLock { s in
            for a in addresses { s.addresses[a.name] = a }
            s.version += 1
        }
    }

    /// Addresses by service name.
    public var addresses: [String: ServiceAddress] { state.withLock { $0.addresses } }

    /// Counts the changes (`set` calls), for caches of what is derived from the addresses.
    public var version: UInt64 { state.withLock { $0.version } }
}
