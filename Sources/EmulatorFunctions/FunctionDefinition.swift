import EmulatorCore

/// Document event kinds.
public enum DocumentEventType: String, Sendable, CaseIterable {
    case created, updated, deleted, written
}

/// What makes a function run.
public enum FunctionTrigger: Sendable, Equatable {
    /// An HTTPS callable (`/{project}/{region}/{name}`).
    case callable
    /// A plain HTTP function (`onRequest`).
    case http
    /// Store document changes on a path pattern such as `tasks/{taskId}`.
    case document(pattern: String, event: DocumentEventType)
    /// `created` or `deleted` users.
    case auth(event: String)
    /// `beforeCreate` or `beforeSignIn`.
    case blocking(event: String)
    /// A scheduled function: runs on `schedule` (unix-cron or App Engine syntax, see
    /// `CronSchedule`) in `timeZone` (default UTC) when schedules run, and on demand.
    case scheduled(schedule: String, timeZone: String?)
    /// Messages published to a Pub/Sub topic (the bare topic id).
    case pubsub(topic: String)
    /// Tasks dispatched from the Cloud Tasks queue named after the function.
    case taskQueue
    /// Cloud Storage object changes in `bucket`: `event` is `finalized`, `deleted`,
    /// `metadataUpdated` or `archived` (`google.cloud.storage.object.v1.<event>`).
    case storage(bucket: String, event: String)

    /// Background triggers are queued; the others run in the request.
    public var isBackground: Bool {
        switch self {
        case .document, .auth, .scheduled, .pubsub, .taskQueue, .storage: return true
        default: return false
        }
    }

    /// A short description for listings (`callable`, `document.written tasks/{taskId}`, ...).
    public var summary: String {
        switch self {
        case .callable: return "callable"
        case .http: return "http"
        case .document(let p, let e): return "document.\(e.rawValue) \(p)"
        case .auth(let e): return "user.\(e)"
        case .blocking(let e): return e
        case .scheduled(let s, let tz): return "schedule \(s)" + (tz.map { " (\($0))" } ?? "")
        case .pubsub(let t): return "pubsub \(t)"
        case .taskQueue: return "taskQueue"
        case .storage(let b, let e): return "storage.\(e) \(b)"
        }
    }
}

/// A function's registration.
public struct FunctionDefinition: Sendable, Equatable {
    /// Name (unique per project).
    public var name: String
    /// Region for the URL (`us-central1`): the first of `regions`.
    public var region: String
    /// Every region the function is served at (a manifest may name several).
    public var regions: [String]
    /// Trigger.
    public var trigger: FunctionTrigger
    /// Retry background invocations that fail.
    public var retry: Bool
    /// Per-invocation timeout in seconds.
    public var timeoutSeconds: Double
    /// Attempts before a retried event is given up (nil: the host's default), from a manifest's
    /// `retryConfig` (scheduled and task-queue functions).
    public var maxAttempts: Int?

    /// Creates a definition.
    public init(
        name: String, region: String = "us-central1", regions: [String]? = nil, trigger: FunctionTrigger, retry: Bool = false,
        timeoutSeconds: Double = 60, maxAttempts: Int? = nil
    ) {
        self.name = name
        self.region = regions?.first ?? region
        self.regions = regions.map { $0.isEmpty ? [region] : $0 } ?? [region]
        self.trigger = trigger
        self.retry = retry
        self.timeoutSeconds = timeoutSeconds
        self.maxAttempts = maxAttempts
    }

    /// Cloud Storage events a trigger may name (`google.cloud.storage.object.v1.<event>`).
    public static let storageEvents: Set<String> = ["finalized", "deleted", "metadataUpdated", "archived"]

    /// Decodes a worker manifest entry (docs/functions.md). `project` supplies the default bucket
    /// of a storage trigger that names none (`{project}.appspot.com`, as the SDKs default it).
    public init(manifest j: JSON, project: String? = nil) throws {
        guard let name = j["name"]?.stringValue, !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw HttpsError(.invalidArgument, "manifest entry needs a 'name' of letters, digits, '_' or '-'")
        }
        let trigger: FunctionTrigger
        switch j["kind"]?.stringValue {
        case "callable": trigger = .callable
        case "http": trigger = .http
        case "document":
            guard let p = j["document"]?.stringValue, let ev = DocumentEventType(rawValue: j["event"]?.stringValue ?? "written") else {
                throw HttpsError(.invalidArgument, "document function '\(name)' needs 'document' and 'event' (created|updated|deleted|written)")
            }
            trigger = .document(pattern: p, event: ev)
        case "auth":
            guard let ev = j["event"]?.stringValue, ["created", "deleted"].contains(ev) else {
                throw HttpsError(.invalidArgument, "auth function '\(name)' needs 'event' created or deleted")
            }
            trigger = .auth(event: ev)
        case "blocking":
            guard let ev = j["event"]?.stringValue, ["beforeCreate", "beforeSignIn"].contains(ev) else {
                throw HttpsError(.invalidArgument, "blocking function '\(name)' needs 'event' beforeCreate or beforeSignIn")
            }
            trigger = .blocking(event: ev)
        case "storage":
            guard let ev = j["event"]?.stringValue, Self.storageEvents.contains(ev) else {
                throw HttpsError(.invalidArgument, "storage function '\(name)' needs 'event' finalized, deleted, metadataUpdated or archived")
            }
            guard let bucket = j["bucket"]?.stringValue ?? project.map({ "\($0).appspot.com" }), !bucket.isEmpty else {
                throw HttpsError(.invalidArgument, "storage function '\(name)' needs a 'bucket'")
            }
            trigger = .storage(bucket: bucket, event: ev)
        default:
            throw HttpsError(
                .invalidArgument, "function '\(name)' has unknown kind \(j["kind"] ?? .null) (callable, http, document, auth, blocking, storage)")
        }
        self.init(
            name: name, region: j["region"]?.stringValue ?? "us-central1", trigger: trigger,
            retry: j["retry"]?.boolValue ?? false, timeoutSeconds: j["timeoutSeconds"]?.doubleValue ?? 60)
    }
}
