/// The one error type services throw. It carries a canonical code and a message that is safe to
/// show the caller; `Emulator`'s error mapper is the only place that turns it into HTTP.
///
/// Wire flavours differ per API (Identity Toolkit omits `status` on plain 400s and adds an
/// `errors[]` array; Firestore sends `status`), so the error records which `style` to render.
public struct EmulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// How the error body is shaped on the wire.
    public enum Style: Sendable, Equatable {
        /// `{"error":{"code","message","status"[,"details"]}}` (Firestore, admin API, functions).
        case google
        /// Identity Toolkit: adds `errors:[{message,reason,domain}]`; `status` omitted when `omitStatus`.
        /// The Cloud Storage JSON API uses the same shape (`reason`: `notFound`, `conditionNotMet`, ...).
        case identityToolkit(reason: String, omitStatus: Bool)
        /// Cloud Storage's XML API: `<Error><Code>code</Code><Message>...</Message></Error>`.
        case xml(code: String)
    }

    /// The canonical code.
    public var code: ErrorCode
    /// A message that names the problem; never internal details.
    public var message: String
    /// Wire flavour.
    public var style: Style
    /// Optional `details` array (google.rpc.Status details, callable error details).
    public var details: JSON?
    /// Overrides the code's HTTP status (rarely needed: e.g. 405/413/431 from the HTTP layer).
    public var httpStatus: Int?

    /// Creates an error; the HTTP status follows the code unless `httpStatus` is set.
    public init(_ code: ErrorCode, _ message: String, style: Style = .google, details: JSON? = nil, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.style = style
        self.details = details
        self.httpStatus = httpStatus
    }

    /// The HTTP status to answer with.
    public var status: Int { httpStatus ?? code.httpStatus }

    /// `CODE: message` for logs.
    public var description: String { "\(code.rawValue): \(message)" }

    /// INVALID_ARGUMENT with a message.
    public static func invalidArgument(_ message: String) -> EmulatorError { EmulatorError(.invalidArgument, message) }
    /// NOT_FOUND with a message.
    public static func notFound(_ message: String) -> EmulatorError { EmulatorError(.notFound, message) }
    /// FAILED_PRECONDITION with a message.
    public static func failedPrecondition(_ message: String) -> EmulatorError { EmulatorError(.failedPrecondition, message) }
    /// ABORTED with a message.
    public static func aborted(_ message: String) -> EmulatorError { EmulatorError(.aborted, message) }
    /// PERMISSION_DENIED with a message.
    public static func permissionDenied(_ message: String) -> EmulatorError { EmulatorError(.permissionDenied, message) }
    /// UNAUTHENTICATED with a message.
    public static func unauthenticated(_ message: String) -> EmulatorError { EmulatorError(.unauthenticated, message) }
    /// ALREADY_EXISTS with a message.
    public static func alreadyExists(_ message: String) -> EmulatorError { EmulatorError(.alreadyExists, message) }
    /// UNIMPLEMENTED with a message.
    public static func unimplemented(_ message: String) -> EmulatorError { EmulatorError(.unimplemented, message) }
    /// INTERNAL with a message.
    public static func `internal`(_ message: String) -> EmulatorError { EmulatorError(.internal, message) }

    /// An Identity Toolkit "bad request" (HTTP 400, no `status`, reason `invalid`), e.g. `EMAIL_EXISTS`.
    public static func authBadRequest(_ message: String) -> EmulatorError {
        EmulatorError(.invalidArgument, message, style: .identityToolkit(reason: "invalid", omitStatus: true))
    }
}
