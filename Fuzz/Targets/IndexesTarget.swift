import EmulatorCore
import EmulatorStore

/// The `indexes` target: `{"file": <firestore.indexes.json>, "query": <StructuredQuery>,
/// "aggregate": ["field", ...]}`. The index file is parsed and must round-trip; the query's
/// index needs are derived, matched against the file, turned into production's message, and
/// the suggested file must parse again (it is served as a ready index file).
public enum IndexesTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let json = try? JSON.parse(data), case .object(let o) = json else { return }
        var config = IndexConfiguration()
        if let file = o["file"], let parsed = try? IndexConfiguration(json: file) {
            guard (try? IndexConfiguration(json: parsed.json)) == parsed else {
                throw FuzzViolation(.indexes, "the index file does not round-trip: \(parsed.json.serialized())")
            }
            config = parsed
        }
        guard let q = o["query"], let query = try? StructuredQuery(json: q) else { return }
        let aggregate = (o["aggregate"]?.arrayValue ?? []).prefix(8).compactMap { $0.stringValue.flatMap { try? FieldPath(parsing: $0) } }
        var suggestions = IndexSuggestions()
        for need in IndexRequirement.needs(for: query, aggregateFields: aggregate) {
            _ = config.serves(need)
            _ = IndexConsoleLink.message(for: need, project: "p", database: "(default)")
            _ = suggestions.record(need)
        }
        let file = suggestions.file(configured: config, missingOnly: false)
        guard let reparsed = try? IndexConfiguration(json: file.json) else {
            throw FuzzViolation(.indexes, "the suggested file does not parse: \(file.json.serialized())")
        }
        for need in suggestions.needs where !reparsed.serves(need) {
            throw FuzzViolation(.indexes, "the suggested file does not serve \(need.index.json.serialized())")
        }
    }
}
