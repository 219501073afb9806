import EmulatorCore

/// An error a function throws on purpose (`functions.https.HttpsError`): its code, message and
/// details reach the caller. Anything else a function throws becomes `INTERNAL`.
public struct HttpsError: Error, Sendable, Equatable {
    /// Canonical status.
    public var code: ErrorCode
    /// Message shown to the caller.
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
