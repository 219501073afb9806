import EmulatorCore
import EmulatorRules

/// Which Storage rules judge a bucket: firebase.json's per-bucket rulesets (`storage` as a list of
/// `{bucket|target, rules}`), else the one rules file (`--storage-rules`, `storage.rules`), else the
/// open development default. With per-bucket rulesets and no single file, a bucket none of them
/// names is denied (production has no bucket without rules; Firebase's emulator answers "no loaded
/// ruleset"). Each file is a `RulesRegistry` (watched, reloaded on change). Immutable after init;
/// the registries hold their own state.
public final class StorageRulesets: Sendable {
    /// What governs one bucket.
    public enum Selection: Sendable {
        /// No rules are configured at all: every request is allowed.
        case open
        /// These rules judge it.
        case rules(CompiledRuleset)
        /// Per-bucket rules exist but none names this bucket.
        case unconfigured(configured: [String])
    }

    /// The rules for buckets without their own (nil when per-bucket rules exist without one).
    public let fallback: RulesRegistry?
    /// Rules per bucket name.
    public let perBucket: [String: RulesRegistry]

    /// Loads every file (a broken one is an error naming it). `bucketPaths` maps bucket names to
    /// rules files; `filePath` is the single file for the rest.
    public init(filePath: String?, bucketPaths: [String: String], logger: any LogSink) throws {
        var perBucket: [String: RulesRegistry] = [:]
        for (bucket, path) in bucketPaths.sorted(by: { $0.key < $1.key }) {
            perBucket[bucket] = try RulesRegistry(filePath: path, logger: logger, service: RulesService.storage)
        }
        self.perBucket = perBucket
        // Without per-bucket rules the single registry is built even without a file: it logs the
        // open-default warning.
        fallback =
            filePath != nil || perBucket.isEmpty ? try RulesRegistry(filePath: filePath, logger: logger, service: RulesService.storage) : nil
    }

    /// What judges `bucket` of `project` (projects share the files: Storage has no per-project rules route).
    public func selection(project: String, bucket: String) -> Selection {
        if let r = perBucket[bucket] { return r.ruleset(for: project).map(Selection.rules) ?? .open }
        guard let fallback else { return .unconfigured(configured: perBucket.keys.sorted()) }
        return fallback.ruleset(for: project).map(Selection.rules) ?? .open
    }

    /// The registry used for logging (any one will do: they share the process's log sink).
    var logger: any LogSink { (fallback ?? perBucket.values.first)?.logger ?? NullLogSink() }

    /// Starts every registry's file watcher.
    public func startWatching() {
        fallback?.startWatching()
        for r in perBucket.values { r.startWatching() }
    }

    /// Stops every watcher.
    public func stopWatching() {
        fallback?.stopWatching()
        for r in perBucket.values { r.stopWatching() }
    }

    /// Re-reads every changed file now (tests; the watchers do it once a second).
    public func reloadIfChanged() {
        fallback?.reloadIfChanged()
        for r in perBucket.values { r.reloadIfChanged() }
    }
}
