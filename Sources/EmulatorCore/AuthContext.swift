/// A verified end user: the uid and the decoded ID-token claims (`request.auth` in rules,
/// `context.auth` in callables).
public struct AuthContext: Sendable, Equatable {
    /// The user's uid (`sub`).
    public var uid: String
    /// All claims of the ID token, including `firebase.sign_in_provider` and custom claims.
    public var token: UTF8Dictionary<JSON>

    /// Creates an auth context.
    public init(uid: String, token: UTF8Dictionary<JSON>) {
        self.uid = uid
        self.token = token
    }

    /// `firebase.sign_in_provider` from the token, e.g. `anonymous`, `password`, `apple.com`.
    public var signInProvider: String? { token["firebase"]?["sign_in_provider"]?.stringValue }
}

/// Who is making a request, after the `Authorization` header was examined.
public enum Caller: Sendable, Equatable {
    /// `Bearer owner` or a `ya29.` token: privileged, bypasses security rules.
    case admin
    /// A signed-in end user.
    case user(AuthContext)
    /// No credentials: `request.auth == null`.
    case unauthenticated

    /// The end user's context, if any.
    public var auth: AuthContext? {
        if case .user(let a) = self { return a }
        return nil
    }

    /// True for privileged callers.
    public var isAdmin: Bool { self == .admin }
}
