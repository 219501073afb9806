import EmulatorFunctions

/// An error a worker function throws on purpose; its status, message and details reach the
/// caller (`HttpsError` in Firebase's SDKs). Anything else becomes `INTERNAL`.
public typealias CallableError = HttpsError
