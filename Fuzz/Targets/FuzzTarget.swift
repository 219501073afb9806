/// The fuzz targets: each drives one parser or decoder that takes untrusted input with arbitrary
/// bytes. A target is deterministic for a given input (no randomness, no clock, no I/O), so a
/// crashing input replays the same way in the regression tests.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `HTTPRequestParser` fed in input-derived chunks, each request resolved against a `Router`.
    case http
    /// `JSON.parse`, then the serialization re-parsed.
    case json
    /// Firestore `Value(json:)`, ordering and the JSON round trip.
    case value
    /// `StructuredQuery(json:)`.
    case query
    /// Rules compilation, then every method evaluated against a data source that has documents.
    case rules
    /// `JWT.decode` and the unsigned re-encoding of what it decoded.
    case jwt
    /// `HPACKDecoder` over a sequence of header blocks, each list re-encoded and decoded again.
    case hpack
    /// `ProtoJSON.decode` of Firestore messages and the JSON round trip.
    case protobuf
    /// The server side of an HTTP/2 connection (frames, HPACK, flow control) fed arbitrary bytes.
    case http2
    /// Python codebases' inputs: `.env` files, schedules, launcher events, output lines, manifests.
    case functions
    /// Storage's upload protocol: streaming multipart bodies, Content-Range, Range, upload commands.
    case storage
    /// Rules regular expressions: compiled and run, answers checked against a backtracker.
    case regex
    /// WebChannel requests (query parameters, form bodies, the `headers=` block) and chunk framing.
    case webchannel
    /// Pub/Sub subscription filters (parsed, evaluated, negated) and google.pubsub.v1 messages.
    case pubsub
    /// `firestore.indexes.json` parsing, the index needs of a query, the console link and the
    /// suggested file (which must parse again and serve every need).
    case indexes

    /// Runs the target on `data`. Throws when the input breaks a property the target checks
    /// (for example a serialization that does not re-parse); a crash is a crash.
    public func run(_ data: [UInt8]) throws(FuzzViolation) {
        switch self {
        case .http: try HTTPTarget.run(data)
        case .json: try JSONTarget.run(data)
        case .value: try ValueTarget.run(data)
        case .query: QueryTarget.run(data)
        case .rules: RulesTarget.run(data)
        case .jwt: try JWTTarget.run(data)
        case .hpack: try HPACKTarget.run(data)
        case .protobuf: try ProtobufTarget.run(data)
        case .http2: try HTTP2Target.run(data)
        case .functions: try FunctionsTarget.run(data)
        case .storage: try StorageTarget.run(data)
        case .regex: try RegexTarget.run(data)
        case .webchannel: try WebChannelTarget.run(data)
        case .pubsub: try PubSubTarget.run(data)
        case .indexes: try IndexesTarget.run(data)
        }
    }
}

/// A property a target checks did not hold for some input: a bug, like a crash, but reported
/// as an error so that tests can print it (the libFuzzer driver turns it into a trap).
public struct FuzzViolation: Error, Sendable, CustomStringConvertible {
    /// The target that noticed.
    public var target: FuzzTarget
    /// What did not hold.
    public var message: String

    /// Creates a violation.
    public init(_ target: FuzzTarget, _ message: String) {
        self.target = target
        self.message = message
    }

    /// `<target>: <message>`.
    public var description: String { "\(target.rawValue): \(message)" }
}
