import EmulatorCore
import FoundationEssentials

/// Reads configuration files: our own `emulator.json` and a Firebase project's `firebase.json`
/// (`emulators.{auth,firestore,functions,hub,pubsub}.{host,port}`, `emulators.firestore.strictIndexes`,
/// `firestore.rules`, `firestore.indexes`, the `functions` codebases), so an existing
/// Firebase project switches with no new config. Relative paths resolve against the file's folder.
public enum ConfigLoader {
    /// The keys `emulator.json` accepts at the top level (anything else is a typo, reported).
    static let knownKeys: Set<String> = [
        "$schema", "project", "host", "port", "ports", "rules", "logLevel", "adminToken",
        "auth", "firestore", "functions", "dataDir", "fsync", "import", "exportOnExit",
        "allowedHosts", "allowedOrigins", "limits", "storage", "storageRules",
    ]

    /// Loads the file at `path` over the defaults. Errors name the file and the key.
    public static func load(path: String, into config: inout EmulatorConfig) throws(CLIError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("cannot read config file '\(path)': no such file or not readable")
        }
        let json: JSON
        do { json = try JSON.parse(Array(data)) } catch {
            throw CLIError("config file '\(path)' is not valid JSON: \(error.description)")
        }
        guard case .object(let root) = json else { throw CLIError("config file '\(path)' must hold a JSON object") }
        // Absolute once, here: a relative folder would be applied again by whoever later runs
        // in another directory (a codebase's `source` inside itself: `functions/functions/venv`).
        let dir = absolute(FilePathText.deletingLastComponent(path))
        if root["emulators"] != nil || FilePathText.lastComponent(path) == "firebase.json" {
            try loadFirebaseJSON(root, path: path, dir: dir, into: &config)
        } else {
            try loadEmulatorJSON(root, path: path, dir: dir, into: &config)
        }
    }

    /// True for ids we accept as project ids (`ResourceId`).
    public static func isValidProjectId(_ id: String) -> Bool { ResourceId.isProjectId(id) }

    /// A host name for `allowedHosts`: a name, `.suffix` (the name and its subdomains) or `*`.
    static func validateAllowedHost(_ h: String, _ context: String) throws(CLIError) -> String {
        let ok =
            h == "*"
            || (!h.isEmpty && h.count <= 253
                && h.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-.:[]_".unicodeScalars.contains($0)
                })
        guard ok else {
            throw CLIError(
                "\(context): '\(h)' is not a host name (expected a name such as devbox.local, .example.test for a domain and its subdomains, or *)")
        }
        return h
    }

    /// An origin for `allowedOrigins`: `scheme://host[:port]` (no path) or `*`.
    static func validateAllowedOrigin(_ o: String, _ context: String) throws(CLIError) -> String {
        if o == "*" { return o }
        let trimmed = o.hasSuffix("/") ? String(o.dropLast()) : o
        guard let r = trimmed.firstRange(of: "://"), !trimmed[..<r.lowerBound].isEmpty, !trimmed[r.upperBound...].isEmpty,
            !trimmed[r.upperBound...].contains("/"), !trimmed.contains(where: { $0 == " " || $0 == "," })
        else { throw CLIError("\(context): '\(o)' is not an origin (expected scheme://host[:port] such as http://devbox.local:3000, or *)") }
        return trimmed
    }

    /// `p` relative to the config file's folder `dir` (absolute), as an absolute path.
    static func resolve(_ p: String, _ dir: String) -> String { FilePathText.absolute(p, from: dir) }

    /// `p` relative to the working directory, as an absolute path (command-line paths, and the
    /// config file's own folder). Every configured path is absolute after loading.
    public static func absolute(_ p: String) -> String {
        FilePathText.absolute(p, from: FileManager.default.currentDirectoryPath)
    }

    static func loadEmulatorJSON(_ root: UTF8Dictionary<JSON>, path: String, dir: String, into c: inout EmulatorConfig) throws(CLIError) {
        if let bad = root.keys.sorted().first(where: { !knownKeys.contains($0) }) {
            throw CLIError(
                "config file '\(path)': unknown key '\(bad)' (known: \(knownKeys.filter { $0 != "$schema" }.sorted().joined(separator: ", ")))")
        }
        func string(_ key: String) throws(CLIError) -> String? {
            guard let v = root[key], !v.isNull else { return nil }
            guard let s = v.stringValue else { throw CLIError("config file '\(path)': '\(key)' must be a string, got \(v.kindName)") }
            return s
        }
        func port(_ v: JSON, _ name: String) throws(CLIError) -> Int {
            guard let n = v.intValue, (0...65535).contains(n) else {
                throw CLIError("config file '\(path)': '\(name)' must be a port number 0-65535, got \(v)")
            }
            return Int(n)
        }
        if let p = try string("project") {
            if let problem = ResourceId.projectProblem(p) {
                throw CLIError("config file '\(path)': 'project' '\(ResourceId.shown(p))' is not a valid project id: \(problem)")
            }
            c.projectId = p
        }
        if let h = try string("host") { c.host = h }
        if let v = root["port"], !v.isNull { c.singlePort = try port(v, "port") }
        if let v = root["ports"], !v.isNull {
            guard case .object(let ports) = v else { throw CLIError("config file '\(path)': 'ports' must be an object like {\"auth\": 9099}") }
            for (name, p) in ports {
                guard EmulatorConfig.serviceNames.contains(name) else {
                    throw CLIError(
                        "config file '\(path)': unknown service '\(name)' in 'ports' (known: \(EmulatorConfig.serviceNames.joined(separator: ", ")))")
                }
                c.ports[name] = try port(p, "ports.\(name)")
            }
        }
        if let r = try string("rules") { c.rulesPath = resolve(r, dir) }
        if let r = try string("storageRules") { c.storageRulesPath = resolve(r, dir) }
        if let l = try string("logLevel") {
            guard let level = LogLevel(name: l) else {
                throw CLIError("config file '\(path)': 'logLevel' must be debug, info, warning or error, got '\(l)'")
            }
            c.logLevel = level
        }
        if let t = try string("adminToken") { c.adminToken = t }
        for key in ["allowedHosts", "allowedOrigins"] {
            guard let v = root[key], !v.isNull else { continue }
            guard case .array(let items) = v, let list = Optional(items.compactMap(\.stringValue)), list.count == items.count else {
                throw CLIError("config file '\(path)': '\(key)' must be an array of strings")
            }
            if key == "allowedHosts" {
                c.allowedHosts = try list.map { h throws(CLIError) in try validateAllowedHost(h, "config file '\(path)': '\(key)'") }
            } else {
                c.allowedOrigins = try list.map { o throws(CLIError) in try validateAllowedOrigin(o, "config file '\(path)': '\(key)'") }
            }
        }
        for key in ["auth", "firestore", "functions", "storage"] {
            guard let v = root[key], !v.isNull else { continue }
            guard case .object = v else { throw CLIError("config file '\(path)': '\(key)' must be an object") }
            switch key {
            case "auth": c.auth = resolveAuthPaths(v, dir)
            case "firestore": c.firestore = try indexSettings(v, path: path, dir: dir, into: &c)
            case "storage": c.storage = v
            default: c.functions = resolveFunctionPaths(v, dir)
            }
        }
        if let d = try string("dataDir") { c.dataDir = resolve(d, dir) }
        if let f = try string("fsync") {
            guard let policy = DataDirectory.FsyncPolicy(rawValue: f) else {
                throw CLIError("config file '\(path)': 'fsync' must be always, interval or never, got '\(f)'")
            }
            c.fsync = policy
        }
        if let v = root["limits"], !v.isNull { c.limits = try limits(v, path: path, base: c.limits) }
        if let d = try string("import") { c.importDir = resolve(d, dir) }
        if let d = try string("exportOnExit") { c.exportOnExit = resolve(d, dir) }
    }

    /// Takes the index settings (`strictIndexes`, `indexes`) out of emulator.json's `firestore`
    /// section into `c`; the rest goes to the document store.
    static func indexSettings(_ v: JSON, path: String, dir: String, into c: inout EmulatorConfig) throws(CLIError) -> JSON {
        guard case .object(var o) = v else { return v }
        if let s = o.removeValue(forKey: "strictIndexes"), !s.isNull {
            guard let b = s.boolValue else { throw CLIError("config file '\(path)': 'firestore.strictIndexes' must be true or false, got \(s)") }
            c.strictIndexes = b
        }
        if let f = o.removeValue(forKey: "indexes"), !f.isNull {
            guard let file = f.stringValue, !file.isEmpty else {
                throw CLIError("config file '\(path)': 'firestore.indexes' must be the path of a firestore.indexes.json file")
            }
            c.indexesPath = resolve(file, dir)
        }
        return .object(o)
    }

    /// `auth.serviceAccounts` key files are relative to the config file.
    static func resolveAuthPaths(_ v: JSON, _ dir: String) -> JSON {
        guard case .object(var o) = v, case .array(let files)? = o["serviceAccounts"] else { return v }
        o["serviceAccounts"] = .array(files.map { f in f.stringValue.map { .string(resolve($0, dir)) } ?? f })
        return .object(o)
    }

    /// The `limits` section: integers within `EmulatorConfig.Limits.ranges`, unknown keys refused.
    static func limits(_ v: JSON, path: String, base: EmulatorConfig.Limits) throws(CLIError) -> EmulatorConfig.Limits {
        guard case .object(let o) = v else { throw CLIError("config file '\(path)': 'limits' must be an object like {\"maxConnections\": 2048}") }
        var l = base
        let ranges = EmulatorConfig.Limits.ranges
        for (key, value) in o.sorted(by: { $0.key < $1.key }) {
            guard let range = ranges[key] else {
                throw CLIError("config file '\(path)': unknown key 'limits.\(key)' (known: \(ranges.keys.sorted().joined(separator: ", ")))")
            }
            guard let n = value.intValue, range.contains(Int(n)) else {
                throw CLIError(
                    "config file '\(path)': 'limits.\(key)' must be an integer from \(range.lowerBound) to \(range.upperBound), got \(value)")
            }
            switch key {
            case "maxConnections": l.maxConnections = Int(n)
            case "maxStreamsPerConnection": l.maxStreamsPerConnection = Int(n)
            case "maxStreams": l.maxStreams = Int(n)
            case "eventLoops": l.eventLoops = Int(n)
            case "maxBufferedBodyBytes": l.maxBufferedBodyBytes = Int(n)
            case "pubsubMaxProjectMessages": l.pubsubMaxProjectMessages = Int(n)
            case "pubsubMaxProjectBytes": l.pubsubMaxProjectBytes = Int(n)
            default: l.outputBufferBytes = Int(n)
            }
        }
        return l
    }

    /// Codebase working directories, watched folders and sources are relative to the config file.
    static func resolveFunctionPaths(_ v: JSON, _ dir: String) -> JSON {
        guard case .object(var o) = v, case .array(let codebases)? = o["codebases"] else { return v }
        o["codebases"] = .array(
            codebases.map { cb in
                guard case .object(var c) = cb else { return cb }
                for k in ["workingDirectory", "watch", "source"] { if let s = c[k]?.stringValue { c[k] = .string(resolve(s, dir)) } }
                return .object(c)
            })
        return .object(o)
    }

    /// firebase.json's `functions` (one object or a list of them: `source` (default `functions`),
    /// `codebase`, `runtime`, `ignore`) as `functions.codebases` entries with a `source`.
    static func firebaseFunctions(_ v: JSON?, path: String, dir: String) throws(CLIError) -> [JSON] {
        let entries: [JSON]
        switch v {
        case nil, .null?: return []
        case .object(let o)?: entries = [.object(o)]
        case .array(let a)?: entries = a
        default: throw CLIError("config file '\(path)': 'functions' must be an object or a list of objects")
        }
        var seen = Set<String>()
        return try entries.map { (e: JSON) throws(CLIError) -> JSON in
            guard case .object(let f) = e else { throw CLIError("config file '\(path)': each 'functions' entry must be an object") }
            let source = f["source"]?.stringValue ?? "functions"
            let codebase = f["codebase"]?.stringValue ?? "default"
            guard seen.insert(codebase).inserted else {
                throw CLIError("config file '\(path)': codebase '\(codebase)' is listed twice in 'functions'")
            }
            var out: UTF8Dictionary<JSON> = ["name": .string(codebase), "source": .string(resolve(source, dir))]
            if let r = f["runtime"]?.stringValue { out["runtime"] = .string(r) }
            if case .array(let ignore)? = f["ignore"] { out["ignore"] = .array(ignore.filter { $0.stringValue != nil }) }
            return .object(out)
        }
    }

    static func loadFirebaseJSON(_ root: UTF8Dictionary<JSON>, path: String, dir: String, into c: inout EmulatorConfig) throws(CLIError) {
        if case .object(let emulators)? = root["emulators"] {
            for (name, section) in emulators {
                guard EmulatorConfig.serviceNames.contains(name), case .object(let s) = section else { continue }
                if let h = s["host"]?.stringValue { c.host = h }
                if let p = s["port"] {
                    // firebase.json allows ports as numbers or numeric strings.
                    guard let n = p.intValue ?? p.stringValue.flatMap({ Int64($0) }), (0...65535).contains(n) else {
                        throw CLIError("config file '\(path)': 'emulators.\(name).port' must be a port number, got \(p)")
                    }
                    c.ports[name] = Int(n)
                }
                if name == "firestore", let strict = s["strictIndexes"], !strict.isNull {
                    guard let b = strict.boolValue else {
                        throw CLIError("config file '\(path)': 'emulators.firestore.strictIndexes' must be true or false, got \(strict)")
                    }
                    c.strictIndexes = b
                }
            }
        }
        // `firestore` is an object or (multi-database) an array; the first entry with rules (or
        // indexes) wins.
        var rules: String?
        var indexes: String?
        switch root["firestore"] {
        case .object(let f)?:
            rules = f["rules"]?.stringValue
            indexes = f["indexes"]?.stringValue
        case .array(let dbs)?:
            rules = dbs.lazy.compactMap { $0["rules"]?.stringValue }.first
            indexes = dbs.lazy.compactMap { $0["indexes"]?.stringValue }.first
        default: break
        }
        if let rules { c.rulesPath = resolve(rules, dir) }
        if let indexes { c.indexesPath = resolve(indexes, dir) }
        let codebases = try firebaseFunctions(root["functions"], path: path, dir: dir)
        if !codebases.isEmpty { c.functions = ["codebases": .array(codebases)] }
        // The project comes from .firebaserc beside firebase.json, as the Firebase CLI reads it.
        let rc = resolve(".firebaserc", dir)
        let rcJSON = FileManager.default.contents(atPath: rc).flatMap { try? JSON.parse(Array($0)) }
        if let p = rcJSON?["projects"]?["default"]?.stringValue, isValidProjectId(p) {
            c.projectId = p
        }
        try storageRules(root["storage"], rc: rcJSON, path: path, dir: dir, into: &c)
    }

    /// firebase.json's `storage`: an object (`rules` serves every bucket) or, with deploy targets,
    /// a list of `{"bucket", "rules"}` / `{"target", "rules"}` entries, a target naming buckets
    /// through `.firebaserc`'s `targets.{project}.storage.{target}` as the Firebase CLI resolves it.
    static func storageRules(_ section: JSON?, rc: JSON?, path: String, dir: String, into c: inout EmulatorConfig) throws(CLIError) {
        switch section {
        case .object(let s)?:
            if let rules = s["rules"]?.stringValue { c.storageRulesPath = resolve(rules, dir) }
        case .array(let entries)?:
            for (i, entry) in entries.enumerated() {
                guard let rules = entry["rules"]?.stringValue else {
                    throw CLIError("config file '\(path)': 'storage[\(i)]' needs 'rules' (a rules file)")
                }
                var buckets: [String] = []
                if let b = entry["bucket"]?.stringValue {
                    buckets = [b]
                } else if let target = entry["target"]?.stringValue {
                    let named = rc?["targets"]?[c.projectId]?["storage"]?[target]?.arrayValue?.compactMap(\.stringValue) ?? []
                    guard !named.isEmpty else {
                        throw CLIError(
                            "config file '\(path)': Storage target '\(target)' is not configured in .firebaserc (targets.\(c.projectId).storage.\(target): [bucket names]); run 'firebase target:apply storage \(target) BUCKET'"
                        )
                    }
                    buckets = named
                } else {
                    throw CLIError("config file '\(path)': 'storage[\(i)]' needs 'bucket' or 'target'")
                }
                for b in buckets { c.storageBucketRulesPaths[b] = resolve(rules, dir) }
            }
        default: break
        }
    }
}
