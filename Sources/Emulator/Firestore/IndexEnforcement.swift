import EmulatorCore
import EmulatorStore
import FoundationEssentials

/// Composite-index enforcement (opt in, `--strict-indexes`) and index suggestions (always on).
/// Every query the Firestore API runs is checked here once: the indexes production would need
/// (`IndexRequirement`) that the project's index file does not declare are recorded per
/// database (logged the first time) and, when strict, refuse the query with production's
/// FAILED_PRECONDITION and console link. The index file is read again when its size or
/// modification time changes, so adding an index takes effect without a restart.
///
/// State (the loaded file, suggestions per project and database) lives behind a `Mutex`.
public final class IndexEnforcement: ProjectStateParticipant, Sendable {
    /// The loaded index file and what was seen.
    struct State {
        /// The index file as last read.
        var configuration = IndexConfiguration()
        /// The version of the file `configuration` came from.
        var fileStamp: FileStamp?
        /// Needs seen, by project then database.
        var suggestions: [String: [String: IndexSuggestions]] = [:]
        /// How many needs `suggestions` holds in all.
        var kept = 0

        /// Counts `kept` again (after a reset or restore, which are rare).
        mutating func recount() { kept = suggestions.values.reduce(0) { n, dbs in dbs.values.reduce(n) { $0 + $1.needs.count } } }
    }

    /// What identifies one version of the index file.
    struct FileStamp: Equatable {
        /// Size in bytes.
        var size: Int
        /// Modification time.
        var modified: Date?
    }

    /// Refuse queries that lack an index.
    public let strict: Bool
    /// The index file (absolute), if any.
    public let path: String?
    /// Where first-seen shapes and reloads are logged.
    let logger: any LogSink
    /// The loaded file and the suggestions.
    let state = Mutex(State())

    /// Index files larger than this are refused (production's limits fit in far less).
    static let maxFileBytes = 4 << 20
    /// The most needs recorded across every project and database. `IndexSuggestions` bounds one
    /// database; without this, a query needing an index sent to made-up project ids kept a
    /// record for each for the process's life. Past it, needs are neither recorded nor logged.
    let maxNeeds: Int

    /// Loads `path` (errors name the file); `strict` turns refusal on.
    public init(path: String?, strict: Bool, logger: any LogSink, maxNeeds: Int = 10_000) throws(CLIError) {
        self.maxNeeds = maxNeeds
        self.path = path
        self.strict = strict
        self.logger = logger
        if let path {
            do {
                let (config, stamp) = try Self.read(path)
                state.withLock {
                    $0.configuration = config
                    $0.fileStamp = stamp
                }
            } catch { throw CLIError("index file '\(path)': \(error.message)") }
        }
    }

    /// The current index configuration (re-read first when the file changed).
    public var configuration: IndexConfiguration {
        reloadIfChanged()
        return state.withLock { $0.configuration }
    }

    /// Checks one query of `project`/`database`: records what it needs and lacks, and when
    /// strict throws FAILED_PRECONDITION for the first missing index.
    public func check(project: String, database: String, query: StructuredQuery, aggregateFields: [FieldPath] = []) throws {
        let needs = IndexRequirement.needs(for: query, aggregateFields: aggregateFields)
        guard !needs.isEmpty else { return }
        reloadIfChanged()
        var firstSeen: [IndexNeed] = []
        let missing: [IndexNeed] = state.withLock { s in
            let missing = needs.filter { !s.configuration.serves($0) }
            // The room is checked before the lookup: the defaults would make empty entries.
            for need in missing where s.kept < maxNeeds && s.suggestions[project, default: [:]][database, default: IndexSuggestions()].record(need) {
                s.kept += 1
                firstSeen.append(need)
            }
            return missing
        }
        for need in firstSeen {
            let fields = need.index.fields.map { "\($0.fieldPath) \($0.mode.logName)" }.joined(separator: ", ")
            logger.log(
                .warning, "firestore",
                "query on \(need.index.collectionGroup) (\(need.index.queryScope.rawValue)) needs an index production would require: [\(fields)]; "
                    + "suggested file: GET /emulator/v1/projects/\(project)/databases/\(database)/indexes:suggested\(strict ? "" : " (not enforced; --strict-indexes refuses such queries)")"
            )
        }
        if strict, let need = missing.first {
            throw EmulatorError.failedPrecondition(IndexConsoleLink.message(for: need, project: project, database: database))
        }
    }

    /// The suggested `firestore.indexes.json` for a database: the configured indexes plus the
    /// missing ones seen (only the missing ones when `missingOnly`).
    public func suggested(project: String, database: String, missingOnly: Bool) -> JSON {
        reloadIfChanged()
        return state.withLock { s in
            (s.suggestions[project]?[database] ?? IndexSuggestions()).file(configured: s.configuration, missingOnly: missingOnly).json
        }
    }

    // MARK: ProjectStateParticipant (suggestions are per-project data; the index file is config)

    /// `indexes`.
    public var participantName: String { "indexes" }
    /// Forgets the project's suggestions.
    public func resetProject(_ projectId: String) throws {
        state.withLock {
            $0.suggestions[projectId] = nil
            $0.recount()
        }
    }
    /// Forgets every suggestion.
    public func resetAll() throws {
        state.withLock {
            $0.suggestions = [:]
            $0.kept = 0
        }
    }
    /// The project's suggestions.
    public func captureProject(_ projectId: String) -> any Sendable { state.withLock { $0.suggestions[projectId] ?? [:] } }
    /// Puts captured suggestions back.
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {
        guard let s = snapshot as? [String: IndexSuggestions] else { throw EmulatorError.internal("Snapshot is not from the index suggestions.") }
        state.withLock {
            $0.suggestions[projectId] = s
            $0.recount()
        }
    }

    // MARK: The file

    /// The file's size and modification time (nil when it cannot be read).
    static func stamp(_ path: String) -> FileStamp? {
        guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        let size = (a[.size] as? Int) ?? (a[.size] as? UInt64).map { Int(clamping: $0) } ?? -1
        return FileStamp(size: size, modified: a[.modificationDate] as? Date)
    }

    /// Reads and parses the file (bounded at `maxFileBytes`).
    static func read(_ path: String) throws(EmulatorError) -> (IndexConfiguration, FileStamp?) {
        let stamp = stamp(path)
        if let s = stamp, s.size > maxFileBytes { throw EmulatorError.invalidArgument("larger than \(maxFileBytes) bytes") }
        guard let data = FileManager.default.contents(atPath: path) else { throw EmulatorError.invalidArgument("cannot read the file") }
        guard data.count <= maxFileBytes else { throw EmulatorError.invalidArgument("larger than \(maxFileBytes) bytes") }
        do { return (try IndexConfiguration(text: Array(data)), stamp) } catch let e as EmulatorError { throw e } catch {
            throw EmulatorError.invalidArgument("\(error)")
        }
    }

    /// Re-reads the file when its size or time changed; a broken file keeps the last good one.
    func reloadIfChanged() {
        guard let path else { return }
        let now = Self.stamp(path)
        guard state.withLock({ $0.fileStamp != now }) else { return }
        do {
            let (config, stamp) = try Self.read(path)
            state.withLock {
                $0.configuration = config
                $0.fileStamp = stamp
            }
            logger.log(
                .info, "firestore",
                "index file '\(path)' reloaded: \(config.indexes.count) composite indexes, \(config.fieldOverrides.count) field overrides")
        } catch {
            state.withLock { $0.fileStamp = now }
            logger.log(.warning, "firestore", "index file '\(path)' not reloaded (keeping the previous indexes): \(error.message)")
        }
    }
}

extension IndexFieldMode {
    /// How the log names the mode.
    var logName: String {
        switch self {
        case .ascending: "ASCENDING"
        case .descending: "DESCENDING"
        case .contains: "CONTAINS"
        case .vector(let d): "VECTOR(\(d))"
        }
    }
}
