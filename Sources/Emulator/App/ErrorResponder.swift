import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf

/// The one place that turns errors into responses: HTTP responses in Google's error shape, and
/// gRPC statuses (the canonical code's number and the same message). Internal causes are logged
/// here and never sent to the client.
public enum ErrorResponder {
    /// The gRPC status for `error`, logging anything unexpected.
    public static func grpcStatus(for error: any Error, logger: any LogSink) -> GRPCStatus {
        switch error {
        case let e as EmulatorError:
            return GRPCStatus(code: e.code.grpcNumber, message: e.message)
        case let s as GRPCStatus:
            return s
        case let e as ProtobufError:
            return GRPCStatus(code: ErrorCode.invalidArgument.grpcNumber, message: "Invalid request message: \(e.description).")
        case let e as JSONParseError:
            return GRPCStatus(code: ErrorCode.invalidArgument.grpcNumber, message: "Invalid JSON payload received. \(e.description).")
        case let e as HTTP2StreamClosed:
            return GRPCStatus(code: ErrorCode.cancelled.grpcNumber, message: e.reason)
        case is CancellationError:
            return GRPCStatus(code: ErrorCode.cancelled.grpcNumber, message: "The call was cancelled.")
        default:
            logger.log(.error, "grpc", "unhandled error: \(String(reflecting: error))")
            return GRPCStatus(code: ErrorCode.internal.grpcNumber, message: "Internal error encountered.")
        }
    }

    /// The response for `error`, logging anything that is not an `EmulatorError`.
    public static func response(for error: any Error, logger: any LogSink) -> HTTPResponse {
        switch error {
        case let e as EmulatorError:
            return response(for: e)
        case let e as JSONParseError:
            return response(for: .invalidArgument("Invalid JSON payload received. \(e.description)."))
        default:
            logger.log(.error, "http", "unhandled error: \(String(reflecting: error))")
            return response(for: .internal("Internal error encountered."))
        }
    }

    /// The wire body of an `EmulatorError` in its declared style.
    public static func response(for e: EmulatorError) -> HTTPResponse {
        var body: [String: JSON] = ["code": .int(Int64(e.status)), "message": .string(e.message)]
        switch e.style {
        case .google:
            body["status"] = .string(e.code.rawValue)
        case .identityToolkit(let reason, let omitStatus):
            body["errors"] = [["message": .string(e.message), "reason": .string(reason), "domain": "global"]]
            if !omitStatus { body["status"] = .string(e.code.rawValue) }
        }
        if let details = e.details { body["details"] = details }
        return .json(["error": .object(body)], status: e.status, pretty: true)
    }
}
