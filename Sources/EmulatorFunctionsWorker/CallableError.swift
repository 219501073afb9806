import EmulatorCore

/// An error a worker function throws on purpose; its status, message and details reach the
/// caller (`HttpsError` in Firebase's SDKs). Anything else becomes `INTERNAL`.
public struct CallableError: Error, Sendable {
    /// Canonical status.
    public var code: ErrorCode
    /// Message for the caller.
    public var message: String
    /// Optional details.
    public var details: JSON?

    /// Creates an error.
    public init(_ code: ErrorCode, _ message: String, details: JSON? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }
}
