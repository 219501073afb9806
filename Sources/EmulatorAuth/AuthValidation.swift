import EmulatorCore

/// Validation helpers with Firebase's messages.
enum AuthValidation {
    /// Lower-cased email, or `INVALID_EMAIL` unless it has one `@` with text on both sides.
    static func email(_ e: String) throws -> String {
        let parts = e.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw EmulatorError.authBadRequest("INVALID_EMAIL") }
        return e.lowercased()
    }

    /// `WEAK_PASSWORD` under six characters (Firebase's only default rule).
    static func password(_ p: String) throws {
        guard p.count >= 6 else { throw EmulatorError.authBadRequest("WEAK_PASSWORD : Password should be at least 6 characters") }
    }

    /// `INVALID_PHONE_NUMBER : Invalid format.` unless `+` and digits.
    static func phone(_ p: String) throws {
        guard p.hasPrefix("+"), p.count >= 4, p.dropFirst().allSatisfy({ $0.isNumber || $0 == " " || $0 == "-" }) else {
            throw EmulatorError.authBadRequest("INVALID_PHONE_NUMBER : Invalid format.")
        }
    }
}
