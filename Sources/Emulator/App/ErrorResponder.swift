import EmulatorCore
import EmulatorHTTP
import EmulatorProtobuf

/// The one place that turns errors into responses: HTTP responses in Google's error shape, and
/// gRPC statuses (the canonical code's number and the same message). Internal causes are logged
/// here and never sent to the client.
public enum ErrorResponder {
    /// Every error as the one `EmulatorError` both renderers show, so HTTP and gRPC agree on the
    /// code and message by construction. Only errors with no canonical meaning (bugs) are logged,
    /// with their cause, and become a bare `INTERNAL`; a cancelled call is `CANCELLED`, not a fault.
    public static func canonical(_ error: any Error, logger: any LogSink) -> EmulatorError {
        switch error {
        case let e as EmulatorError:
            return e
        case let s as GRPCStatus:
            return EmulatorError(ErrorCode(grpcNumber: s.code) ?? .unknown, s.message)
        case let e as ProtobufError:
            return .invalidArgument("Invalid request message: \(e.description).")
        case let e as JSONParseError:
            return .invalidArgument("Invalid JSON payload received. \(e.description).")
        case let e as HTTPBodyError:
            // A streamed request body that failed (too large, stalled, broken framing).
            let code: ErrorCode =
                e.status == 413 ? .resourceExhausted : e.status == 408 ? .deadlineExceeded : e.status == 499 ? .cancelled : .invalidArgument
            return EmulatorError(code, e.message, httpStatus: e.status)
        case let e as HTTP2StreamClosed:
            return EmulatorError(.cancelled, e.reason)
        case is CancellationError:
            return EmulatorError(.cancelled, "The call was cancelled.")
        default:
            logger.log(.error, "emulator", "unhandled error: \(String(reflecting: error))")
            return .internal("Internal error encountered.")
        }
    }

    /// The gRPC status for `error` (`canonical`: the code's number and the same message).
    public static func grpcStatus(for error: any Error, logger: any LogSink) -> GRPCStatus {
        let e = canonical(error, logger: logger)
        return GRPCStatus(code: e.code.grpcNumber, message: e.message)
    }

    /// The stream error message of a WebChannel stream for `error` (`canonical`):
    /// `{"error":{"code":<gRPC number>,"message":..,"status":"PERMISSION_DENIED"}}`, what the
    /// JS SDK reads from a backchannel array (docs/webchannel.md).
    public static func webChannelError(for error: any Error, logger: any LogSink) -> JSON {
        let e = canonical(error, logger: logger)
        return ["error": ["code": .int(Int64(e.code.grpcNumber)), "message": .string(e.message), "status": .string(e.code.rawValue)]]
    }

    /// The HTTP response for `error` (`canonical`, in its wire style).
    public static func response(for error: any Error, logger: any LogSink) -> HTTPResponse {
        response(for: canonical(error, logger: logger))
    }

    /// The wire body of an `EmulatorError` in its declared style.
    public static func response(for e: EmulatorError) -> HTTPResponse {
        if case .xml(let code) = e.style { return xmlResponse(e, code: code) }
        var body: UTF8Dictionary<JSON> = ["code": .int(Int64(e.status)), "message": .string(e.message)]
        switch e.style {
        case .google:
            body["status"] = .string(e.code.rawValue)
        case .identityToolkit(let reason, let omitStatus):
            body["errors"] = [["message": .string(e.message), "reason": .string(reason), "domain": "global"]]
            if !omitStatus { body["status"] = .string(e.code.rawValue) }
        case .xml:
            break
        }
        if let details = e.details { body["details"] = details }
        return .json(["error": .object(body)], status: e.status, pretty: true)
    }

    /// The XML API's error body (`application/xml`).
    static func xmlResponse(_ e: EmulatorError, code: String) -> HTTPResponse {
        func escape(_ t: String) -> String {
            t.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
        }
        let text = "<?xml version='1.0' encoding='UTF-8'?><Error><Code>\(escape(code))</Code><Message>\(escape(e.message))</Message></Error>"
        return .text(text, status: e.status, contentType: "application/xml; charset=UTF-8")
    }
}
