import EmulatorCore
import FirebaseEmulatorTesting
import FoundationEssentials

#if DEBUG
// The gRPC service, its call and the HTTP/2 stream handle have no public initializers (the
// product has no reason to build them outside a connection); tests reach them through
// @testable, which debug builds allow. Release builds of this target serve REST only.
@testable import Emulator
@testable import EmulatorHTTP
#else
import Emulator
import EmulatorHTTP
#endif

/// Runs gRPC calls against the Firestore gRPC service over an in-memory HTTP/2 stream: the
/// request's framed messages are delivered as the stream's body, and what the service writes
/// (headers, framed messages, trailers) is collected. Exactly the code a socket would reach,
/// minus HTTP/2 framing. Unary and server-streaming methods only (the client side ends at once).
/// Immutable; one per app.
struct InProcessGRPC: Sendable {
    #if DEBUG
    let handler: GRPCHandler

    static func make(_ app: EmulatorApp) -> InProcessGRPC? {
        let service = FirestoreGRPCService(api: FirestoreAPI(services: app.services))
        return InProcessGRPC(handler: { await service.handle($0) })
    }

    func call(_ request: EmulatorRequest) async -> EmulatorResponse {
        var fields = [
            HPACKHeaderField(name: ":method", value: request.method), HPACKHeaderField(name: ":path", value: request.path),
            HPACKHeaderField(name: ":scheme", value: "http"), HPACKHeaderField(name: ":authority", value: "127.0.0.1"),
        ]
        for (k, v) in request.headers { fields.append(HPACKHeaderField(name: k.lowercased(), value: v)) }
        let sink = CommandSink()
        let stream = HTTP2Stream(
            id: 1, requestHeaders: fields, remoteAddress: "in-process", budget: HTTP2SendBudget(limit: 1 << 30), post: { sink.post($0) })
        sink.stream.withLock { $0 = stream }
        if !request.body.isEmpty { stream.deliver([UInt8](request.body)) }
        stream.deliverEnd()
        await GRPCServerCall.serve(stream, handler)
        return sink.response()
    }
    #else
    static func make(_ app: EmulatorApp) -> InProcessGRPC? { nil }
    func call(_ request: EmulatorRequest) async -> EmulatorResponse { EmulatorResponse(status: 501) }
    #endif
}

#if DEBUG
/// Collects what the handler asks the (absent) event loop to send. Behind `Mutex`es: the
/// handler's task posts while the caller waits.
final class CommandSink: Sendable {
    let commands = Mutex<[HTTP2StreamCommand]>([])
    let stream = Mutex<HTTP2Stream?>(nil)

    func post(_ command: HTTP2StreamCommand) {
        if case .batch(let parts) = command {
            for part in parts { post(part) }
            return
        }
        commands.withLock { $0.append(command) }
        // Nothing is framed here, so tell the stream its bytes left at once (or writers would
        // wait for a drain that never comes once 256 KiB are queued).
        if case .data(let bytes, _) = command { stream.withLock { $0 }?.drained(bytes.count) }
    }

    func response() -> EmulatorResponse {
        var status = 200
        var headers: [(String, String)] = []
        var trailers: [(String, String)] = []
        var body = Data()
        var sawHeaders = false
        for c in commands.withLock({ $0 }) {
            switch c {
            case .headers(let h, let end):
                let pairs = h.filter { !$0.name.hasPrefix(":") }.map { ($0.name, $0.value) }
                if let s = h.first(where: { $0.name == ":status" }).flatMap({ Int($0.value) }) { status = s }
                if end || sawHeaders { trailers += pairs } else { headers += pairs }
                sawHeaders = true
            case .data(let bytes, _): body.append(contentsOf: bytes)
            case .trailers(let h): trailers += h.map { ($0.name, $0.value) }
            case .reset: trailers.append(("grpc-status", "13"))
            case .consumed, .batch: break  // batches are taken apart in `post`
            }
        }
        return EmulatorResponse(status: status, headers: headers, body: body, trailers: trailers)
    }
}
#endif
