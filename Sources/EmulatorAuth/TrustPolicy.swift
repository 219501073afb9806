/// Firebase production's trusted-provider rules for one account per email.
///
/// Trusted: apple.com always; google.com for gmail.com/googlemail.com; yahoo.com for yahoo.com;
/// microsoft.com for outlook.com/hotmail.com; an email verified through our verification flow.
/// Everything else (facebook.com, twitter.com, github.com, other domains, unverified password)
/// is untrusted.
public enum TrustPolicy {
    /// What to do when a federated sign-in meets an existing account with the same email.
    public enum Decision: Sendable, Equatable {
        /// Return `needConfirmation` (SDK: account-exists-with-different-credential); change nothing.
        case needConfirmation
        /// The new trusted provider takes the account over: untrusted providers and an
        /// unverified password are removed and old tokens revoked.
        case takeOver
        /// Link the new provider next to the existing trusted ones.
        case link
    }

    /// Whether `providerId` is authoritative for `email`.
    public static func isTrusted(providerId: String, email: String) -> Bool {
        let domain = email.split(separator: "@").last.map { $0.lowercased() } ?? ""
        switch providerId {
        case "apple.com": return true
        case "google.com": return domain == "gmail.com" || domain == "googlemail.com"
        case "yahoo.com": return domain == "yahoo.com"
        case "microsoft.com": return domain == "outlook.com" || domain == "hotmail.com"
        default: return false
        }
    }

    /// The table: existing account trusted? × new provider trusted?
    public static func decide(existingTrusted: Bool, newTrusted: Bool) -> Decision {
        switch (existingTrusted, newTrusted) {
        case (false, false): return .needConfirmation  // untrusted then untrusted
        case (true, false): return .needConfirmation  // trusted then untrusted
        case (false, true): return .takeOver  // untrusted then trusted
        case (true, true): return .link  // trusted then trusted
        }
    }
}
