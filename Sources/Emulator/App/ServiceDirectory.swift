import EmulatorCore

/// Where each service is reachable, filled in once the listeners are bound (so port 0 reports
/// the real port). Behind a `Mutex`: written once at start, read by status routes.
public final class ServiceDirectory: Sendable {
    private let state: Mutex<[String: ServiceAddress]> = Mutex([:])

    /// Creates an empty directory.
    public init() {}

    /// Records the bound addresses.
    public func set(_ addresses: [ServiceAddress]) {
        state.withLock { s in for a in addresses { s[a.name] = a } }
    }

    /// Addresses by service name.
    public var addresses: [String: ServiceAddress] { state.withLock { $0 } }
}
