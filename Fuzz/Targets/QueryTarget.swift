import EmulatorCore
import EmulatorStore

/// The `query` target: `StructuredQuery(json:)`, validation included.
public enum QueryTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) {
        guard let json = try? JSON.parse(data) else { return }
        _ = try? StructuredQuery(json: json)
    }
}
