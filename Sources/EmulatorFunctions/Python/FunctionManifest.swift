import EmulatorCore

/// One endpoint of a Firebase functions manifest (`functions.yaml`, `specVersion: v1alpha1`), with
/// what the host needs to call it the way the platform would.
public struct ManifestEndpoint: Sendable, Equatable {
    /// The registration (name, regions, trigger, retry, timeout).
    public var definition: FunctionDefinition
    /// `http` (https, callable, blocking, schedule, task queue) or `cloudevent` (Firestore, Pub/Sub):
    /// what `FUNCTION_SIGNATURE_TYPE` the process gets and how events are delivered.
    public var signatureType: String
    /// The CloudEvent type of an event trigger (`google.cloud.firestore.document.v1.written`,
    /// possibly `.withAuthContext`; `google.cloud.pubsub.topic.v1.messagePublished`).
    public var eventType: String?
    /// The event filters (`database`, `namespace`, `document`, `topic`).
    public var eventFilters: [String: String]
    /// The IdP tokens a blocking function asks to receive (`blockingTrigger.options`: `idToken`,
    /// `accessToken`, `refreshToken` set to true).
    public var forwardedCredentials: Set<String> = []
}

/// A declared parameter (`params:`): reaches the function as an environment variable of the same name.
public struct ManifestParam: Sendable, Equatable {
    /// Name (= environment variable).
    public var name: String
    /// `string`, `int`, `float`, `boolean`, `list` or `secret`.
    public var type: String
    /// The default as environment text, when the manifest gives a literal one.
    public var defaultValue: String?
}

/// A whole manifest, converted from its JSON form (the YAML read by the venv's own PyYAML).
/// Endpoints the emulator cannot serve are left out with a warning naming them. Pure.
public struct FunctionManifest: Sendable, Equatable {
    /// Servable endpoints, sorted by name.
    public var endpoints: [ManifestEndpoint]
    /// Declared parameters.
    public var params: [ManifestParam]
    /// What was left out, and why.
    public var warnings: [String]

    /// Event types of Firestore document triggers start with this.
    static let firestorePrefix = "google.cloud.firestore.document.v1."
    /// The Pub/Sub CloudEvent type.
    static let pubsubType = "google.cloud.pubsub.topic.v1.messagePublished"
    static let storagePrefix = "google.cloud.storage.object.v1."
    static let storageEvents = FunctionDefinition.storageEvents
    /// Blocking event types the host emulates, to its event names.
    static let blockingTypes = [
        "providers/cloud.auth/eventTypes/user.beforeCreate": "beforeCreate",
        "providers/cloud.auth/eventTypes/user.beforeSignIn": "beforeSignIn",
    ]

    /// Converts the manifest; throws `INVALID_ARGUMENT` when it is not a v1alpha1 manifest at all.
    public init(json: JSON) throws {
        guard case .object(let root) = json else { throw HttpsError(.invalidArgument, "the manifest is not a mapping") }
        if let v = root["specVersion"]?.stringValue, v != "v1alpha1" {
            throw HttpsError(.invalidArgument, "manifest specVersion '\(v)' is not supported (v1alpha1)")
        }
        var endpoints: [ManifestEndpoint] = []
        var warnings: [String] = []
        let raw = root["endpoints"]?.objectValue ?? [:]
        for name in raw.keys.sorted() {
            do {
                if let e = try Self.endpoint(name, raw[name] ?? .null) { endpoints.append(e) }
            } catch let e as HttpsError {
                warnings.append("\(name): \(e.message)")
            }
        }
        var params: [ManifestParam] = []
        for p in root["params"]?.arrayValue ?? [] {
            guard let name = p["name"]?.stringValue else { continue }
            params.append(ManifestParam(name: name, type: p["type"]?.stringValue ?? "string", defaultValue: Self.literal(p["default"])))
        }
        self.endpoints = endpoints
        self.params = params
        self.warnings = warnings
    }

    /// A literal default as environment text (expressions such as `{{ params.X }}` are not evaluated).
    static func literal(_ v: JSON?) -> String? {
        switch v {
        case .string(let s)?: return s.contains("{{") ? nil : s
        case .int(let i)?: return String(i)
        case .double(let d)?: return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .bool(let b)?: return b ? "true" : "false"
        case .array(let a)?: return JSON.array(a).serialized()
        default: return nil
        }
    }

    /// Function names the platform accepts.
    static func validName(_ n: String) -> Bool {
        guard let f = n.unicodeScalars.first, n.unicodeScalars.count <= 63, f.isASCIILetter else { return false }
        return n.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }

    /// One endpoint, or a thrown reason why it cannot be served.
    static func endpoint(_ name: String, _ e: JSON) throws -> ManifestEndpoint? {
        guard case .object = e else { throw HttpsError(.invalidArgument, "the endpoint is not a mapping") }
        guard validName(name) else { throw HttpsError(.invalidArgument, "'\(name)' is not a valid function name") }
        if let p = e["platform"]?.stringValue, p != "gcfv2" && p != "gcfv1" {
            throw HttpsError(.invalidArgument, "platform '\(p)' is not supported")
        }
        let regions = (e["region"]?.arrayValue ?? []).compactMap(\.stringValue)
        let timeout = e["timeoutSeconds"]?.doubleValue ?? 60
        func make(
            _ t: FunctionTrigger, sig: String, retry: Bool = false, maxAttempts: Int? = nil, eventType: String? = nil,
            filters: [String: String] = [:]
        ) -> ManifestEndpoint {
            ManifestEndpoint(
                definition: FunctionDefinition(
                    name: name, regions: regions.isEmpty ? ["us-central1"] : regions, trigger: t, retry: retry,
                    timeoutSeconds: timeout > 0 ? timeout : 60, maxAttempts: maxAttempts),
                signatureType: sig, eventType: eventType, eventFilters: filters)
        }
        if e["callableTrigger"]?.objectValue != nil { return make(.callable, sig: "http") }
        if e["httpsTrigger"]?.objectValue != nil { return make(.http, sig: "http") }
        if let b = e["blockingTrigger"] {
            let type = b["eventType"]?.stringValue ?? ""
            guard let event = blockingTypes[type] else { throw HttpsError(.invalidArgument, "blocking event '\(type)' is not emulated") }
            var endpoint = make(.blocking(event: event), sig: "http")
            for key in ["idToken", "accessToken", "refreshToken"] where b["options"]?[key]?.boolValue == true {
                endpoint.forwardedCredentials.insert(key)
            }
            return endpoint
        }
        if let s = e["scheduleTrigger"] {
            guard let schedule = s["schedule"]?.stringValue else { throw HttpsError(.invalidArgument, "scheduleTrigger has no schedule") }
            let retries = s["retryConfig"]?["retryCount"]?.intValue ?? 0
            return make(
                .scheduled(schedule: schedule, timeZone: s["timeZone"]?.stringValue), sig: "http", retry: retries > 0,
                maxAttempts: retries > 0 ? Int(retries) + 1 : nil)
        }
        if let t = e["taskQueueTrigger"] {
            let attempts = t["retryConfig"]?["maxAttempts"]?.intValue ?? 3
            return make(.taskQueue, sig: "http", retry: attempts > 1, maxAttempts: Int(max(1, attempts)))
        }
        if let t = e["eventTrigger"] {
            let type = t["eventType"]?.stringValue ?? ""
            var filters: [String: String] = [:]
            for (k, v) in t["eventFilters"]?.objectValue ?? [:] { if let s = v.stringValue { filters[k] = s } }
            var patterns: [String: String] = [:]
            for (k, v) in t["eventFilterPathPatterns"]?.objectValue ?? [:] { if let s = v.stringValue { patterns[k] = s } }
            let retry = t["retry"]?.boolValue ?? false
            if type.hasPrefix(firestorePrefix) {
                var kind = String(type.dropFirst(firestorePrefix.count))
                if kind.hasSuffix(".withAuthContext") { kind = String(kind.dropLast(".withAuthContext".count)) }
                guard let event = DocumentEventType(rawValue: kind) else {
                    throw HttpsError(.invalidArgument, "Firestore event '\(type)' is not known")
                }
                guard let pattern = patterns["document"] ?? filters["document"] else {
                    throw HttpsError(.invalidArgument, "Firestore trigger has no document filter")
                }
                let database = filters["database"] ?? "(default)"
                guard database == "(default)" else {
                    throw HttpsError(.invalidArgument, "triggers on database '\(database)' are not emulated (only (default))")
                }
                var f = filters
                f["document"] = pattern
                f["database"] = database
                f["namespace"] = filters["namespace"] ?? "(default)"
                return make(.document(pattern: pattern, event: event), sig: "cloudevent", retry: retry, eventType: type, filters: f)
            }
            if type == pubsubType {
                guard let topic = filters["topic"], !topic.isEmpty else { throw HttpsError(.invalidArgument, "Pub/Sub trigger has no topic") }
                let bare = topic.split(separator: "/").last.map(String.init) ?? topic
                return make(.pubsub(topic: bare), sig: "cloudevent", retry: retry, eventType: type, filters: ["topic": bare])
            }
            if type.hasPrefix(storagePrefix) {
                let kind = String(type.dropFirst(storagePrefix.count))
                guard storageEvents.contains(kind) else { throw HttpsError(.invalidArgument, "Storage event '\(type)' is not known") }
                guard let bucket = filters["bucket"], !bucket.isEmpty else { throw HttpsError(.invalidArgument, "Storage trigger has no bucket") }
                return make(.storage(bucket: bucket, event: kind), sig: "cloudevent", retry: retry, eventType: type, filters: ["bucket": bucket])
            }
            throw HttpsError(.invalidArgument, "event '\(type)' is not emulated")
        }
        throw HttpsError(.invalidArgument, "the endpoint has no trigger the emulator knows")
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
