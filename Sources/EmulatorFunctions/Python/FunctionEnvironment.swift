import EmulatorCore

/// The environment of a codebase's processes, layered the way the Firebase CLI layers it (later
/// wins): the emulator's own environment (PATH, HOME, ...) with the venv activated, the dummy
/// credentials, parameter defaults, the user's `.env` files, the platform's variables
/// (`GCLOUD_PROJECT`, `K_REVISION`, ...), the emulator flags, one `*_EMULATOR_HOST` per emulated
/// service, `FIREBASE_CONFIG`, the secrets from `.secret.local`, and last the serving variables.
/// A pure value: the file reading happens in `PythonCodebase`.
public struct FunctionEnvironment: Sendable, Equatable {
    /// The emulator process's own environment.
    public var inherited: [String: String]
    /// The project the codebase serves.
    public var project: String
    /// `<source>/venv` (absolute).
    public var venv: String
    /// `.env`, `.env.<project>` and `.env.local`, already merged in that order.
    public var userEnv: [String: String] = [:]
    /// Parameter defaults from the manifest (used when no `.env` file sets the parameter).
    public var paramDefaults: [String: String] = [:]
    /// `.secret.local`.
    public var secrets: [String: String] = [:]
    /// `FIREBASE_AUTH_EMULATOR_HOST`, `FIRESTORE_EMULATOR_HOST`, ... (`host:port`).
    public var emulatorHosts: [String: String] = [:]
    /// `GOOGLE_APPLICATION_CREDENTIALS`: the generated dummy service account file.
    public var credentialsPath: String?
    /// Extra variables from the emulator's config (below the user's `.env` files).
    public var configured: [String: String] = [:]
    /// The emulator's own switches for the launcher (`EMULATOR_VERIFY_ID_TOKENS`, ...), above everything the user sets.
    public var controls: [String: String] = [:]

    /// Creates an environment description.
    public init(inherited: [String: String], project: String, venv: String) {
        self.inherited = inherited
        self.project = project
        self.venv = venv
    }

    /// Variables this layer strips from the inherited environment: they would point the function's
    /// libraries somewhere else than the emulator, or confuse the venv.
    static let dropped: Set<String> = [
        "PYTHONHOME", "PYTHONPATH", "VIRTUAL_ENV", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "FIREBASE_CONFIG",
        "PUBSUB_EMULATOR_HOST", "FIREBASE_DATABASE_EMULATOR_HOST", "FIREBASE_STORAGE_EMULATOR_HOST",
        "STORAGE_EMULATOR_HOST", "CLOUD_EVENTARC_EMULATOR_HOST", "FUNCTION_TARGET", "FUNCTION_SIGNATURE_TYPE",
        "K_SERVICE", "ADMIN_PORT", "PORT", "CLOUD_RUN_TIMEOUT_SECONDS", "FUNCTIONS_EMULATOR_HOST",
    ]

    /// `FIREBASE_CONFIG` for a project (the CLI's shape for a demo project).
    public static func firebaseConfig(project: String) -> String {
        JSON.object([
            "projectId": .string(project), "storageBucket": .string("\(project).appspot.com"),
            "databaseURL": .string("https://\(project)-default-rtdb.firebaseio.com"),
        ]).serialized()
    }

    /// What every process of the codebase gets (the launcher and the admin server too).
    public var common: [String: String] {
        var env = inherited.filter { !Self.dropped.contains($0.key) }
        env["VIRTUAL_ENV"] = venv
        env["PATH"] = venv + "/bin" + (inherited["PATH"].map { ":" + $0 } ?? "")
        if let c = credentialsPath { env["GOOGLE_APPLICATION_CREDENTIALS"] = c }
        for (k, v) in configured { env[k] = v }
        for (k, v) in paramDefaults { env[k] = v }
        for (k, v) in userEnv { env[k] = v }
        env["GCLOUD_PROJECT"] = project
        env["GOOGLE_CLOUD_QUOTA_PROJECT"] = project
        env["K_REVISION"] = "1"
        env["FUNCTIONS_EMULATOR"] = "true"
        env["TZ"] = "UTC"
        env["FIREBASE_DEBUG_MODE"] = "true"
        env["FIREBASE_DEBUG_FEATURES"] = #"{"skipTokenVerification":true,"enableCors":true}"#
        for (k, v) in emulatorHosts { env[k] = v }
        env["FIREBASE_CONFIG"] = Self.firebaseConfig(project: project)
        for (k, v) in secrets { env[k] = v }
        for (k, v) in controls { env[k] = v }
        env["HOST"] = "127.0.0.1"
        env["DEBUG"] = "False"
        env["PYTHONUNBUFFERED"] = "1"
        return env
    }

    /// The environment of one function's process (its `PORT` is added by the process itself, once
    /// it has bound its socket).
    public func forFunction(_ name: String, signatureType: String) -> [String: String] {
        var env = common
        env["FUNCTION_TARGET"] = name
        env["FUNCTION_SIGNATURE_TYPE"] = signatureType
        env["K_SERVICE"] = name
        return env
    }

    /// Merges the `.env` files in the CLI's order (later wins).
    public static func mergeUserEnv(dotEnv: [String: String]?, projectEnv: [String: String]?, localEnv: [String: String]?) -> [String: String] {
        var out: [String: String] = [:]
        for layer in [dotEnv, projectEnv, localEnv] { for (k, v) in layer ?? [:] { out[k] = v } }
        return out
    }
}
