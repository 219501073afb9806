import EmulatorCore

/// Runs the server side of one HTTP/2 connection without a socket: bytes in, bytes out, each new
/// stream answered at once by a fixed rule. For fuzzing and replays, where the event loop's
/// threads and timers would only get in the way; the connection logic is exactly the server's.
///
/// Not thread-safe: one driver per input, used from one thread.
public final class HTTP2ConnectionDriver {
    private let connection: HTTP2Connection
    private let posted = Mutex<[(UInt32, HTTP2StreamCommand)]>([])
    private var opened: [HTTP2Stream] = []
    /// What the server wrote so far (its preface first).
    public private(set) var output: [UInt8] = []
    /// The connection error that ended the connection, if any.
    public private(set) var error: HTTP2ErrorCode?
    /// Streams opened by the peer so far.
    public var streamCount: Int { opened.count }

    /// Creates the connection and writes the server preface.
    public init(limits: HTTP2Limits = HTTP2Limits()) {
        let posted = self.posted
        var fresh: [HTTP2Stream] = []
        // A clock that moves one millisecond per `feed`: the flood limits refill the same way
        // for the same input, whatever the machine.
        let ticker = Ticker()
        self.ticker = ticker
        connection = HTTP2Connection(
            limits: limits, remote: "driver", clock: { ticker.now },
            post: { id, c in posted.withLock { $0.append((id, c)) } },
            onStream: { s, _ in fresh.append(s) })
        connection.start(into: &output)
        takeOpened = {
            defer { fresh = [] }
            return fresh
        }
    }

    private var takeOpened: () -> [HTTP2Stream] = { [] }

    /// The driver's clock (monotonic nanoseconds).
    private final class Ticker {
        var now: UInt64 = 1_000_000_000
    }

    private let ticker: Ticker

    /// Feeds bytes received after the client preface. New streams are answered: every third is
    /// reset by the server, the others get response headers and trailers (trailers-only when the
    /// stream number is even), so both the send path and HPACK encoding run. Returns false once
    /// the connection has ended with an error.
    @discardableResult
    public func feed(_ bytes: [UInt8]) -> Bool {
        guard error == nil else { return false }
        ticker.now += 1_000_000
        if let e = bytes.withUnsafeBytes({ connection.receive($0, into: &output) }) {
            error = e.code
            return false
        }
        for s in takeOpened() {
            opened.append(s)
            let n = opened.count
            if n % 3 == 0 {
                s.reset(.cancel)
            } else if n % 2 == 0 {
                try? s.write(
                    headers: [
                        HPACKHeaderField(name: ":status", value: "200"),
                        HPACKHeaderField(name: "grpc-status", value: "0"),
                    ], endStream: true)
            } else {
                try? s.write(headers: [
                    HPACKHeaderField(name: ":status", value: "200"),
                    HPACKHeaderField(name: "content-type", value: "application/grpc"),
                ])
                try? s.write(trailers: [
                    HPACKHeaderField(name: "grpc-status", value: "0"),
                    HPACKHeaderField(name: "grpc-message", value: "stream \(n)"),
                ])
            }
        }
        let commands = posted.withLock { p -> [(UInt32, HTTP2StreamCommand)] in
            defer { p = [] }
            return p
        }
        for (id, c) in commands { connection.handle(stream: id, c, into: &output) }
        connection.pump(into: &output)
        return true
    }

    /// The peer's SETTINGS_MAX_FRAME_SIZE as last announced (our frames never exceed it).
    public var peerMaxFrameSize: Int { connection.peerMaxFrameSize }

    /// The send window the peer has granted on the connection (never negative).
    public var connectionSendWindow: Int { connection.connSendWindow }
}
