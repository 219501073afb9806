import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf

/// Firestore's two streams over WebChannel, the transport of the JS SDK in browsers
/// (`/google.firestore.v1.Firestore/{Listen,Write}/channel`, docs/webchannel.md): a third adapter
/// beside REST and gRPC over the same transport-neutral protocols, `FirestoreListen` and
/// `FirestoreWriteStream`. `EmulatorHTTP`'s `WebChannelServer` does the sessions and framing;
/// this type builds one per stream and the stream objects that map messages.
///
/// - Messages are the proto3 JSON of google.firestore.v1 `ListenRequest`/`WriteRequest` in each
///   map's `__data__`; each is passed through the protobuf schema (JSON → bytes → JSON), so it
///   reaches the protocol in exactly the form a gRPC message decodes to (the same validation, the
///   same normal form).
/// - Answers go out one per array, wrapped as the SDK reads them: `[id,[<ListenResponse or
///   WriteResponse>]]`; a stream error is `{"error":{code,message,status}}` and ends the stream.
/// - The credential is the `Authorization` of the handshake's `headers=` block (browsers cannot
///   put it on the requests), judged by the same browser rules as a header.
///
/// Immutable; shared by every session.
final class FirestoreWebChannel: Sendable {
    /// The `/Listen/channel` server.
    let listen: WebChannelServer
    /// The `/Write/channel` server.
    let write: WebChannelServer

    /// Builds both servers with the configured timings.
    init(services: EmulatorServices, configuration: WebChannelConfiguration) {
        let api = FirestoreAPI(services: services)
        let policy = BrowserPolicy(config: services.config)
        let faults = FirestoreStreamFaultWatch(faults: services.faults)
        let heartbeats = ListenHeartbeats(interval: .seconds(60))
        let encoder = FirestoreWebChannelEncoder()
        listen = WebChannelServer(
            service: Service(kind: .listen, api: api, policy: policy, faults: faults, heartbeats: heartbeats, encoder: encoder),
            configuration: configuration)
        write = WebChannelServer(
            service: Service(kind: .write, api: api, policy: policy, faults: faults, heartbeats: heartbeats, encoder: encoder),
            configuration: configuration)
    }

    /// The `WebChannelService` of one of the two streams: opens a stream per session.
    struct Service: WebChannelService {
        /// Which stream.
        enum Kind { case listen, write }
        let kind: Kind
        let api: FirestoreAPI
        let policy: BrowserPolicy
        let faults: FirestoreStreamFaultWatch
        let heartbeats: ListenHeartbeats
        let encoder: FirestoreWebChannelEncoder

        /// A new session's stream, with the handshake's credential.
        func open(_ handshake: WebChannelHandshake, session: WebChannelSession) throws -> any WebChannelStream {
            let context = try FirestoreWebChannel.context(handshake, policy)
            switch kind {
            case .listen:
                let stream = FirestoreWebChannelListen(
                    listen: FirestoreListen(api: api, context: context), session: session,
                    heartbeats: heartbeats, faults: faults, encoder: encoder)
                faults.add(stream)
                return stream
            case .write:
                let stream = FirestoreWebChannelWrite(stream: FirestoreWriteStream(api: api, context: context), session: session)
                faults.add(stream)
                return stream
            }
        }
    }

    /// The session's credential: `Authorization` from the `headers=` block (or, from clients that
    /// are not browsers, the request's own header). The browser rules judge it as if it were the
    /// request's header, so a cross-origin page cannot smuggle `Bearer owner` in the body.
    static func context(_ handshake: WebChannelHandshake, _ policy: BrowserPolicy) throws -> FirestoreCallContext {
        let authorization = handshake.headers["Authorization"] ?? handshake.request.headers["Authorization"]
        var probe = handshake.request
        if let authorization { probe.headers.set("Authorization", authorization) }
        if let refusal = policy.refusal(for: probe, controlPlane: false) { throw refusal }
        return FirestoreCallContext(bearerToken: CallerResolver.bearer(fromAuthorization: authorization))
    }

    /// One client message: the map's `__data__` JSON, passed through `schema` so that it has the
    /// form a gRPC request of the same content decodes to (unknown fields and wrong types are
    /// refused as `INVALID_ARGUMENT`, as over gRPC).
    static func message(_ map: [String: String], _ schema: MessageSchema) throws -> JSON {
        guard let text = map["__data__"] else {
            throw EmulatorError.invalidArgument("A WebChannel message must carry its JSON in the '__data__' field.")
        }
        let json = try JSON.parse(Array(text.utf8))
        return try ProtoJSON.decode(ProtoJSON.encode(json, as: schema), as: schema)
    }
}
