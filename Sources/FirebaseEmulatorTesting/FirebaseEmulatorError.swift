import Foundation

/// Everything the testing library throws. Every public `async` call is
/// `throws(FirebaseEmulatorError)`, so a test can switch over what went wrong.
public enum FirebaseEmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The emulator answered with a status other than the expected one: the HTTP status, the
    /// canonical code (`NOT_FOUND`, `PERMISSION_DENIED`, ...) when the body has one, the message
    /// (Identity Toolkit's `EMAIL_EXISTS`, a rules explanation, ...) and the decoded body.
    case http(status: Int, code: String?, message: String, body: JSONValue?)
    /// A gRPC call ended with a non-OK status (number and message).
    case grpc(status: Int, message: String)
    /// The request never got an answer (connection refused, timed out, ...).
    case transport(String)
    /// The answer was not what the API documents.
    case decoding(String)
    /// A wait ended before its condition held (`waitIdle`), naming what was pending.
    case timeout(String)
    /// No emulator could be found, or the transport cannot do what was asked.
    case unavailable(String)

    /// The HTTP or gRPC status code, when the emulator answered.
    public var status: Int? {
        switch self {
        case .http(let s, _, _, _), .grpc(let s, _): return s
        default: return nil
        }
    }

    /// The emulator's message, or the description of what failed.
    public var message: String {
        switch self {
        case .http(_, _, let m, _), .grpc(_, let m): return m
        case .transport(let m), .decoding(let m), .timeout(let m), .unavailable(let m): return m
        }
    }

    /// One line saying what failed.
    public var description: String {
        switch self {
        case .http(let s, let code, let m, _): return "HTTP \(s)\(code.map { " \($0)" } ?? ""): \(m)"
        case .grpc(let s, let m): return "gRPC status \(s): \(m)"
        case .transport(let m): return "transport: \(m)"
        case .decoding(let m): return "unexpected answer: \(m)"
        case .timeout(let m): return "timed out: \(m)"
        case .unavailable(let m): return "unavailable: \(m)"
        }
    }

    /// Builds the error for an unexpected answer from its body (Google's `{"error": {...}}`).
    static func from(status: Int, body: Data) -> FirebaseEmulatorError {
        let json = try? JSONValue.parse(body)
        let error = json?["error"]
        let message = error?["message"]?.stringValue ?? String(decoding: body.prefix(500), as: UTF8.self)
        return .http(status: status, code: error?["status"]?.stringValue, message: message, body: json)
    }
}
