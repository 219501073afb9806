import EmulatorCore

/// A Python functions codebase written with the official SDK (firebase-functions from PyPI): a
/// folder with `requirements.txt` and `main.py`, served from its `venv`. From firebase.json's
/// `functions` entry (`source`, `codebase`, `runtime`, `ignore`) or emulator.json's
/// `functions.codebases[]` entry with a `source`.
public struct PythonCodebaseConfig: Sendable, Equatable {
    /// The codebase id (firebase.json `codebase`, default `default`).
    public var name: String
    /// The source folder (absolute once loaded).
    public var source: String
    /// `python310` … `python314`: the interpreter used when the venv has to be created.
    public var runtime: String?
    /// Paths under `source` whose changes do not reload the codebase (firebase.json `ignore`;
    /// `*` matches within a path segment).
    public var ignore: [String]
    /// The project it serves (default: the emulator's).
    public var project: String?
    /// Extra environment variables (below the `.env` files).
    public var environment: [String: String]
    /// Create `venv` and `pip install -r requirements.txt` when `venv` is missing.
    public var installDependencies: Bool
    /// Fork every function process from one warm launcher (default); off: each one starts a fresh
    /// interpreter, exactly as the Firebase CLI does.
    public var prefork: Bool
    /// Start every function's process right after discovery instead of on its first call.
    public var prestart: Bool
    /// Reload when the source folder changes.
    public var watch: Bool
    /// How long discovery and a function's start may take.
    public var startTimeoutSeconds: Double
    /// Have `firebase_admin.auth.verify_id_token` inside the functions verify through the emulator
    /// (signature, expiry on the project clock, revocation) instead of the SDK's emulator mode,
    /// which checks neither signature nor expiry.
    public var verifyIdTokens: Bool

    /// The keys an entry may have.
    public static let knownKeys: Set<String> = [
        "name", "codebase", "source", "runtime", "ignore", "project", "env", "installDependencies",
        "prefork", "prestart", "watch", "startTimeoutSeconds", "verifyIdTokens",
    ]

    /// Creates a configuration with the defaults.
    public init(
        name: String = "default", source: String, runtime: String? = nil, ignore: [String] = ["venv", ".git", "*.log", "__pycache__"],
        project: String? = nil
    ) {
        self.name = name
        self.source = source
        self.runtime = runtime
        self.ignore = ignore
        self.project = project
        environment = [:]
        installDependencies = true
        prefork = true
        prestart = false
        watch = true
        startTimeoutSeconds = 30
        verifyIdTokens = true
    }

    /// Decodes an entry; `name` falls back to `codebase`, then `default`.
    public init(json j: JSON) throws {
        guard case .object(let o) = j else { throw HttpsError(.invalidArgument, "a functions codebase must be an object") }
        if let bad = o.keys.sorted().first(where: { !Self.knownKeys.contains($0) }) {
            throw HttpsError(.invalidArgument, "functions codebase: unknown key '\(bad)' (known: \(Self.knownKeys.sorted().joined(separator: ", ")))")
        }
        guard let source = o["source"]?.stringValue, !source.isEmpty else {
            throw HttpsError(.invalidArgument, "functions codebase needs a 'source' folder")
        }
        let name = o["name"]?.stringValue ?? o["codebase"]?.stringValue ?? "default"
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw HttpsError(.invalidArgument, "functions codebase name '\(name)' may hold only letters, digits, '-' and '_'")
        }
        self.init(name: name, source: source, runtime: o["runtime"]?.stringValue, project: o["project"]?.stringValue)
        if let r = runtime, !(r.hasPrefix("python3") && Int(r.dropFirst(7)) != nil) {
            throw HttpsError(.invalidArgument, "functions codebase '\(name)': runtime '\(r)' is not a Python runtime (python310 … python314)")
        }
        if let list = o["ignore"]?.arrayValue { ignore = list.compactMap(\.stringValue) }
        environment = (o["env"]?.objectValue ?? [:]).compactMapValues(\.stringValue).dictionary
        func flag(_ key: String, _ current: Bool) throws -> Bool {
            guard let v = o[key], !v.isNull else { return current }
            guard let b = v.boolValue else { throw HttpsError(.invalidArgument, "functions codebase '\(name)': '\(key)' must be true or false") }
            return b
        }
        installDependencies = try flag("installDependencies", installDependencies)
        prefork = try flag("prefork", prefork)
        prestart = try flag("prestart", prestart)
        watch = try flag("watch", watch)
        verifyIdTokens = try flag("verifyIdTokens", verifyIdTokens)
        if let t = o["startTimeoutSeconds"], !t.isNull {
            guard let s = t.doubleValue, s > 0, s <= 600 else {
                throw HttpsError(.invalidArgument, "functions codebase '\(name)': 'startTimeoutSeconds' must be a number of seconds (0-600]")
            }
            startTimeoutSeconds = s
        }
    }

    /// `<source>/venv`.
    public var venv: String { source + "/venv" }

    /// The interpreter name for `runtime` (`python311` → `python3.11`), or `python3`.
    public var interpreter: String {
        guard let r = runtime, r.hasPrefix("python3"), r.count > 7 else { return "python3" }
        return "python3." + r.dropFirst(7)
    }
}
