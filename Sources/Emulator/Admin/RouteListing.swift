import EmulatorCore
import EmulatorHTTP

/// `GET /emulator/v1/routes`: every registered route as `{"routes": [{"method", "path"}]}`, in
/// registration order (`*` is any method). It answers "what does this emulator serve?" and lets
/// the bad-input catalogue prove it covers every route.
///
/// The router has to list itself, so the listing is registered like any route and filled in by
/// `publish` once the router is complete. The handler holds this box, and the box holds only the
/// rendered JSON, never the router: no reference cycle.
final class RouteListing: Sendable {
    /// The path the listing is served at.
    static let path = "/emulator/v1/routes"

    private let document = Mutex<JSON>(["routes": []])

    /// Registers `GET /emulator/v1/routes` on `r`, answering whatever was last published.
    func register(_ r: inout Router) {
        r.get(Self.path) { [self] _, _ in .json(document.withLock { $0 }) }
    }

    /// Publishes the finished router's table; call it after the last registration.
    func publish(_ table: [(method: String, template: String)]) {
        let routes = JSON.array(table.map { ["method": .string($0.method), "path": .string($0.template)] })
        document.withLock { $0 = ["routes": routes] }
    }
}
