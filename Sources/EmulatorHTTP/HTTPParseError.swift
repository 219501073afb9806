/// Why a request could not be parsed; each maps to the status the server answers with before
/// closing the connection.
public enum HTTPParseError: Error, Sendable, Equatable {
    /// Malformed request line, header or chunk framing (400).
    case badRequest(String)
    /// Request line plus headers larger than the limit (431).
    case headersTooLarge
    /// Body larger than the limit (413).
    case bodyTooLarge
    /// A method or transfer coding the server does not implement (501).
    case notImplemented(String)
    /// An HTTP version other than 1.0 and 1.1 (505).
    case versionNotSupported

    /// The status code to answer with.
    public var status: Int {
        switch self {
        case .badRequest: return 400
        case .headersTooLarge: return 431
        case .bodyTooLarge: return 413
        case .notImplemented: return 501
        case .versionNotSupported: return 505
        }
    }

    /// A short message for the error body.
    public var message: String {
        switch self {
        case .badRequest(let why): return "Bad request: \(why)."
        case .headersTooLarge: return "Request line and headers exceed the size limit."
        case .bodyTooLarge: return "Request body exceeds the size limit."
        case .notImplemented(let what): return "Not implemented: \(what)."
        case .versionNotSupported: return "Only HTTP/1.0 and HTTP/1.1 are supported."
        }
    }
}
