import EmulatorCore
import EmulatorHTTP

/// `GET` and `POST` on `/google.firestore.v1.Firestore/{Listen,Write}/channel`: Firestore over
/// WebChannel for the JS SDK in browsers (`FirestoreWebChannel`). Literal paths, so they win over
/// the functions catch-all `/{project}/{region}/{name}`.
enum FirestoreWebChannelRoutes {
    /// The two channel paths.
    static let listenPath = "/google.firestore.v1.Firestore/Listen/channel"
    /// The Write stream's channel path.
    static let writePath = "/google.firestore.v1.Firestore/Write/channel"

    /// Registers the routes (one `FirestoreWebChannel` per router).
    static func register(_ r: inout Router, _ s: EmulatorServices) {
        let channel = FirestoreWebChannel(services: s, configuration: s.webChannel.configuration())
        for (path, server) in [(listenPath, channel.listen), (writePath, channel.write)] {
            r.post(path) { req, _ in try await server.handle(req) }
            r.get(path) { req, _ in try await server.handle(req) }
        }
    }
}

/// The `firestore.webChannel` section of emulator.json: timings of the WebChannel transport
/// (docs/webchannel.md). Seconds as numbers; unknown keys are errors.
public struct FirestoreWebChannelOptions: Sendable, Equatable {
    /// A session whose client is gone (no backchannel, no request) is reaped after this long.
    public var sessionTimeoutSeconds: Double = 180
    /// A silent streaming backchannel gets a `["noop"]` after this long (under the clients' 45 s).
    public var keepAliveSeconds: Double = 25
    /// A long poll with nothing to say ends after this long.
    public var longPollSeconds: Double = 25
    /// A session whose waiting data no backchannel takes for this long is dropped.
    public var stallTimeoutSeconds: Double = 60
    /// Open sessions per stream kind (Listen, Write).
    public var maxSessions = 20_000
    /// Open sessions per stream kind and client address (`WebChannelConfiguration.maxSessionsPerPeer`).
    public var maxSessionsPerPeer = 1_000
    /// A session that has not attached a backchannel this long after its handshake is reaped.
    public var unattachedTimeoutSeconds: Double = 60

    /// The defaults.
    public init() {}

    /// Decodes the section; throws naming a bad or unknown key.
    public init(json: JSON) throws {
        guard case .object(let o) = json else { throw EmulatorError.invalidArgument("'firestore.webChannel' must be an object") }
        let known =
            "sessionTimeoutSeconds, keepAliveSeconds, longPollSeconds, stallTimeoutSeconds, maxSessions, maxSessionsPerPeer, unattachedTimeoutSeconds"
        for (k, v) in o {
            func seconds(_ limit: Double) throws -> Double {
                guard let s = v.doubleValue, s > 0, s <= limit else {
                    throw EmulatorError.invalidArgument("firestore.webChannel.\(k) must be a number of seconds above 0 and at most \(Int(limit))")
                }
                return s
            }
            switch k {
            case "sessionTimeoutSeconds": sessionTimeoutSeconds = try seconds(86_400)
            case "keepAliveSeconds": keepAliveSeconds = try seconds(40)  // clients give up after 45 s of silence
            case "longPollSeconds": longPollSeconds = try seconds(40)
            case "stallTimeoutSeconds": stallTimeoutSeconds = try seconds(86_400)
            case "maxSessions":
                guard let n = v.intValue, n > 0, n <= 1_000_000 else {
                    throw EmulatorError.invalidArgument("firestore.webChannel.maxSessions must be an integer from 1 to 1000000")
                }
                maxSessions = Int(n)
            case "maxSessionsPerPeer":
                guard let n = v.intValue, n > 0, n <= 1_000_000 else {
                    throw EmulatorError.invalidArgument("firestore.webChannel.maxSessionsPerPeer must be an integer from 1 to 1000000")
                }
                maxSessionsPerPeer = Int(n)
            case "unattachedTimeoutSeconds": unattachedTimeoutSeconds = try seconds(86_400)
            default:
                throw EmulatorError.invalidArgument("unknown key 'firestore.webChannel.\(k)' (known: \(known))")
            }
        }
    }

    /// The transport's configuration: these timings, a maintenance pass at least four times per
    /// shortest timing (at most every second).
    func configuration() -> WebChannelConfiguration {
        var c = WebChannelConfiguration()
        func duration(_ s: Double) -> Duration { .milliseconds(Int64((s * 1000).rounded())) }
        c.sessionTimeout = duration(sessionTimeoutSeconds)
        c.keepAliveInterval = duration(keepAliveSeconds)
        c.longPollTimeout = duration(longPollSeconds)
        c.stallTimeout = duration(stallTimeoutSeconds)
        c.maxSessions = maxSessions
        c.maxSessionsPerPeer = maxSessionsPerPeer
        c.unattachedTimeout = duration(unattachedTimeoutSeconds)
        let shortest = min(sessionTimeoutSeconds, keepAliveSeconds, longPollSeconds, stallTimeoutSeconds, unattachedTimeoutSeconds)
        c.tick = duration(max(0.01, min(1, shortest / 4)))
        return c
    }

    /// Splits the `firestore` section into the store's part and this one.
    static func split(_ firestore: JSON) throws -> (store: JSON, webChannel: FirestoreWebChannelOptions) {
        guard case .object(var o) = firestore, let section = o.removeValue(forKey: "webChannel") else {
            return (firestore, FirestoreWebChannelOptions())
        }
        return (.object(o), try FirestoreWebChannelOptions(json: section))
    }
}
