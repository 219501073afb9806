import EmulatorCore
import EmulatorHTTP

/// `GET /emulator/v1/routes`: every registered route as `{"routes": [{"method", "path"}]}`, in
/// registration order (`*` is any method). It answers "what does this emulator serve?" and lets
/// the bad-input catalogue prove it covers every route.
enum RouteListing {
    /// The path the listing is served at.
    static let path = "/emulator/v1/routes"

    /// Registers the listing on `r`; call it after every other route, so the table it serves is
    /// the router's as it stands plus this route, rendered once.
    static func register(_ r: inout Router) {
        let table = r.table + [(method: "GET", template: path)]
        let document: JSON = ["routes": .array(table.map { ["method": .string($0.method), "path": .string($0.template)] })]
        r.get(path) { _, _ in .json(document) }
    }
}
