import EmulatorCore
import EmulatorCrypto
import EmulatorRules
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Which rules each project runs, for one service (Firestore's `--rules`, Storage's
/// `--storage-rules`): a ruleset set through `:securityRules`, else the rules file (watched; a
/// change is compiled and swapped atomically, a broken file keeps the last good ruleset), else the
/// open development default. State is behind a `Mutex`.
public final class RulesRegistry: Sendable {
    struct State {
        var fileRuleset: CompiledRuleset?
        var fileDiagnostics: [Diagnostic] = []
        var fileMTime: Int = 0
        var perProject: [String: CompiledRuleset] = [:]
        var warnedOpen = false
    }

    let logger: any LogSink
    let filePath: String?
    /// The `service` the rules must declare (`RulesService.firestore` or `.storage`).
    public let service: String
    private let state = Mutex(State())

    /// Loads the rules file, if any. A broken file at start is an error (exit 2), naming the problem.
    public init(filePath: String?, logger: any LogSink, service: String = RulesService.firestore) throws {
        self.filePath = filePath
        self.logger = logger
        self.service = service
        if let filePath {
            guard let text = try? String(contentsOfFile: filePath, encoding: .utf8) else {
                throw CLIError("cannot read rules file '\(filePath)'")
            }
            switch CompiledRuleset.compile(fileName: FilePathText.lastComponent(filePath), source: text, hasher: CryptoHasher(), service: service) {
            case .success(let r):
                state.withLock {
                    $0.fileRuleset = r
                    $0.fileMTime = Self.mtime(filePath)
                }
            case .failure(let e): throw CLIError("rules file '\(filePath)' does not compile:\n\(e)")
            }
        } else if service == RulesService.storage {
            // Firebase's emulator does the same (open rules and a warning) when firebase.json names none.
            logger.log(
                .warning, "rules",
                "no Storage rules file configured: every Firebase API (/v0) read and write is allowed (open development default). Pass --storage-rules PATH or set storage.rules in firebase.json to enforce rules."
            )
        } else {
            logger.log(
                .warning, "rules",
                "no Firestore rules file configured: every read and write is allowed (open development default). Pass --rules PATH to enforce rules.")
        }
    }

    /// The ruleset governing `project` (nil = open development default).
    public func ruleset(for project: String) -> CompiledRuleset? {
        state.withLock { $0.perProject[project] ?? $0.fileRuleset }
    }

    /// True when the project runs rules set through `:securityRules` (not the rules file).
    public func hasProjectRules(_ project: String) -> Bool { state.withLock { $0.perProject[project] != nil } }

    /// Installs rules for one project (`:securityRules`). Returns the diagnostics; on failure the
    /// previous rules stay unless `ignoreErrors` (then they stay too, and the issues are returned).
    public func setRules(project: String, fileName: String, source: String) -> Result<CompiledRuleset, RulesCompileError> {
        let r = CompiledRuleset.compile(fileName: fileName, source: source, hasher: CryptoHasher(), service: service)
        if case .success(let rs) = r { state.withLock { $0.perProject[project] = rs } }
        return r
    }

    /// Drops the project's own rules (it falls back to the rules file or the open default).
    public func removeRules(project: String) { state.withLock { _ = $0.perProject.removeValue(forKey: project) } }

    /// Re-reads the rules file when its modification time changed.
    public func reloadIfChanged() {
        guard let filePath else { return }
        let m = Self.mtime(filePath)
        guard m != 0, m != state.withLock({ $0.fileMTime }) else { return }
        state.withLock { $0.fileMTime = m }
        guard let text = try? String(contentsOfFile: filePath, encoding: .utf8) else { return }
        switch CompiledRuleset.compile(fileName: FilePathText.lastComponent(filePath), source: text, hasher: CryptoHasher(), service: service) {
        case .success(let r):
            state.withLock {
                $0.fileRuleset = r
                $0.fileDiagnostics = []
            }
            logger.log(.info, "rules", "reloaded \(filePath)")
        case .failure(let e):
            state.withLock { $0.fileDiagnostics = e.diagnostics }
            logger.log(.error, "rules", "\(filePath) does not compile; keeping the last good rules:\n\(e)")
        }
    }

    private let watching = Mutex(false)

    /// Polls the rules file once a second on a background thread, until `stopWatching()`.
    public func startWatching() {
        guard filePath != nil else { return }
        watching.withLock { $0 = true }
        BackgroundThread.detach(name: "rules-watch") { [weak self] in
            while true {
                sleep(1)
                guard let self, self.watching.withLock({ $0 }) else { return }
                self.reloadIfChanged()
            }
        }
    }

    /// Stops the watcher thread.
    public func stopWatching() { watching.withLock { $0 = false } }

    static func mtime(_ path: String) -> Int {
        var st = stat()
        guard stat(path, &st) == 0 else { return 0 }
        return Int(st.st_mtim.tv_sec) * 1_000_000_000 + Int(st.st_mtim.tv_nsec)
    }
}

/// `hashing.md5`/`sha256` for rules, through OpenSSL.
struct CryptoHasher: RulesHasher {
    func digest(_ algorithm: String, _ bytes: [UInt8]) -> [UInt8]? {
        switch algorithm {
        case "sha256": return Digest.sha256(bytes)
        case "md5": return Digest.md5(bytes)
        default: return nil
        }
    }
}
