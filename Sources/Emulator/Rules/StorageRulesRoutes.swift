import EmulatorCore
import EmulatorHTTP
import EmulatorRules

/// Storage rules' coverage, as Firestore's `:ruleCoverage` shows it:
/// `GET /emulator/v1/projects/{p}/storage/buckets/{bucket}:ruleCoverage` (per-expression counts)
/// and `:ruleCoverage.html` (the source annotated), for the ruleset that judges that bucket.
enum StorageRulesRoutes {
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let base = "/emulator/v1/projects/{project}/storage/buckets/{bucket}"
        r.get(base + ":ruleCoverage") { _, m in .json(try ruleset(s, m["project"], m["bucket"]).coverageJSON()) }
        r.get(base + ":ruleCoverage.html") { _, m in
            .text(try ruleset(s, m["project"], m["bucket"]).coverageHTML(), contentType: "text/html; charset=utf-8")
        }
    }

    /// The ruleset judging `bucket`, or NOT_FOUND saying why there is none.
    static func ruleset(_ s: EmulatorServices, _ project: String, _ bucket: String) throws -> CompiledRuleset {
        try s.projects.requireKnown(project)
        switch s.storageRules.selection(project: project, bucket: bucket) {
        case .rules(let r): return r
        case .open:
            throw EmulatorError.notFound("Bucket '\(bucket)' runs the open development default (no Storage rules); there is nothing to cover.")
        case .unconfigured(let configured):
            throw EmulatorError.notFound(
                "No Storage rules are loaded for bucket '\(bucket)'; firebase.json's storage rules name \(configured.joined(separator: ", ")).")
        }
    }
}
