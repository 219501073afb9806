import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf
import Testing

@testable import Emulator

/// One canonical form of every error feeds both renderers (issue 23): HTTP and gRPC agree on the
/// code and message, and only bugs are logged as internal errors.
@Suite struct ErrorResponderTests {
    final class Lines: LogSink, @unchecked Sendable {
        let lines = Mutex<[String]>([])
        func log(_ level: LogLevel, _ component: String, _ message: String) { lines.withLock { $0.append(message) } }
    }

    struct Bug: Error {}

    static func parseError() -> any Error {
        do { _ = try JSON.parse("{") } catch { return error }
        return Bug()
    }

    static let errors: [(any Error, ErrorCode)] = [
        (EmulatorError.notFound("No document."), .notFound),
        (GRPCStatus(code: 10, message: "Transaction aborted."), .aborted),
        (Self.parseError(), .invalidArgument),
        (HTTP2StreamClosed(code: nil, reason: "The connection closed."), .cancelled),
        (CancellationError(), .cancelled),
        (Bug(), .internal),
    ]

    @Test func httpAndGRPCAgreeOnEveryError() {
        for (error, code) in Self.errors {
            let log = Lines()
            let http = ErrorResponder.response(for: error, logger: log)
            let grpc = ErrorResponder.grpcStatus(for: error, logger: log)
            #expect(http.status == code.httpStatus, "\(error)")
            #expect(grpc.code == code.grpcNumber, "\(error)")
            let message = (try? JSON.parse(http.body))?["error"]?["message"]?.stringValue
            #expect(message == grpc.message, "\(error)")
            // Only the bug is logged (twice: once per renderer).
            #expect(log.lines.withLock { $0.count } == (code == .internal ? 2 : 0), "\(error)")
        }
    }

    @Test func internalCausesAreNeverSent() {
        let http = ErrorResponder.response(for: Bug(), logger: NullLogSink())
        #expect(String(decoding: http.body, as: UTF8.self).contains("Bug") == false)
    }
}
