import EmulatorCore

/// The claims of a fake IdP credential from `signInWithIdp`'s `requestUri`/`postBody`.
struct IdpCredential {
    /// Lower-cased provider id.
    var providerId: String
    /// The IdP's user id.
    var sub: String
    /// Lower-cased asserted email.
    var email: String?
    /// The `email_verified` claim.
    var emailVerified: Bool
    /// `name` claim.
    var displayName: String?
    /// `picture` claim.
    var photoUrl: String?
    /// `screen_name` claim.
    var screenName: String?
    /// Every claim, returned as `rawUserInfo`.
    var rawClaims: UTF8Dictionary<JSON>
    /// The `id_token` as sent.
    var idToken: String?
    /// The `access_token` as sent.
    var accessToken: String?
    /// The `refresh_token`, `oauth_token_secret` and `expires_in` parameters, as sent.
    var refreshToken: String?
    var tokenSecret: String?
    var expiresIn: Int64?

    /// Parses `a=b&c=d` (form or query), percent-decoding.
    static func form(_ s: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in s.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let k = decode(kv[0]), v = kv.count > 1 ? decode(kv[1]) : ""
            out[k] = v
        }
        return out
    }

    /// Percent-decodes one component (`+` is a space).
    static func decode(_ s: Substring) -> String { FormDecoding.component(s) }

    /// Reads the credential as Firebase's emulator does: parameters from the `requestUri` query and
    /// fragment and `postBody`; claims from `id_token` (strict JSON or any JWT), else `access_token`.
    static func parse(requestUri: String?, postBody: String?) throws -> IdpCredential {
        guard let uri = requestUri, !uri.isEmpty else { throw EmulatorError.authBadRequest("MISSING_REQUEST_URI") }
        guard uri.contains("://") else { throw EmulatorError.authBadRequest("INVALID_REQUEST_URI") }
        var params: [String: String] = [:]
        if let q = uri.firstIndex(of: "?") {
            let rest = uri[uri.index(after: q)...]
            params.merge(form(rest.split(separator: "#", maxSplits: 1).first ?? ""), uniquingKeysWith: { $1 })
        }
        if let f = uri.firstIndex(of: "#") { params.merge(form(uri[uri.index(after: f)...]), uniquingKeysWith: { $1 }) }
        if let pb = postBody { params.merge(form(Substring(pb)), uniquingKeysWith: { $1 }) }
        guard let provider = params["providerId"]?.lowercased(), !provider.isEmpty else {
            throw EmulatorError.authBadRequest("INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: \(uri)")
        }
        if provider.hasPrefix("saml.") { return try saml(provider, params) }
        var claims: UTF8Dictionary<JSON>?
        if let t = params["id_token"] {
            guard let c = claimsOf(t) else {
                throw EmulatorError.authBadRequest(
                    "INVALID_IDP_RESPONSE : Unable to parse id_token: \(t) ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
            }
            claims = c
        } else if let t = params["access_token"] {
            claims = claimsOf(t)
            if claims == nil {
                throw EmulatorError(.unimplemented, "The Auth Emulator does not support \(provider) sign-in with credentials.")
            }
        }
        guard let c = claims else {
            throw EmulatorError(.unimplemented, "The Auth Emulator only supports sign-in with credentials (id_token required).")
        }
        guard let sub = c["sub"]?.stringValue, !sub.isEmpty else {
            throw EmulatorError.authBadRequest("INVALID_IDP_RESPONSE : ((Missing or invalid \"sub\" field in id_token.))")
        }
        let verified: Bool
        switch c["email_verified"] {
        case .bool(let b)?: verified = b
        case .string(let s)?: verified = s == "true"
        default: verified = false
        }
        return IdpCredential(
            providerId: provider, sub: sub, email: c["email"]?.stringValue?.lowercased(), emailVerified: verified,
            displayName: c["name"]?.stringValue, photoUrl: c["picture"]?.stringValue,
            screenName: c["screen_name"]?.stringValue, rawClaims: c, idToken: params["id_token"], accessToken: params["access_token"],
            refreshToken: params["refresh_token"], tokenSecret: params["oauth_token_secret"],
            expiresIn: params["expires_in"].flatMap { Int64($0) })
    }

    /// SAML: a JSON `SAMLResponse` whose `assertion.subject.nameId` is the user (and the email
    /// when it looks like one; SAML emails count as verified, as in Firebase's emulator).
    private static func saml(_ provider: String, _ params: [String: String]) throws -> IdpCredential {
        guard let text = params["SAMLResponse"], case .object(let resp)? = try? JSON.parse(text),
            let nameId = resp["assertion"]?["subject"]?["nameId"]?.stringValue, !nameId.isEmpty
        else { throw EmulatorError.authBadRequest("INVALID_IDP_RESPONSE : ((Missing assertion.subject.nameId in SAMLResponse.))") }
        let email = nameId.contains("@") ? nameId.lowercased() : nil
        let attrs = resp["assertion"]?["attributeStatements"] ?? .array([])
        return IdpCredential(
            providerId: provider, sub: nameId, email: email, emailVerified: email != nil, displayName: nil, photoUrl: nil,
            screenName: nil, rawClaims: ["nameId": .string(nameId), "attributeStatements": attrs], idToken: nil, accessToken: nil)
    }

    private static func claimsOf(_ t: String) -> UTF8Dictionary<JSON>? {
        if t.hasPrefix("{") {
            guard case .object(let o)? = try? JSON.parse(t) else { return nil }
            return o
        }
        return JWT.decode(t)?.payload
    }

    /// What a blocking function is handed about this sign-in (firebase-tools sends the same:
    /// the profile as JSON text, SAML attribute statements as JSON text, the OAuth tokens).
    var blocking: BlockingCredential {
        let saml = providerId.hasPrefix("saml.") ? rawClaims["attributeStatements"] : nil
        return BlockingCredential(
            rawUserInfo: JSON.object(rawClaims).serialized(), signInAttributes: saml, idToken: idToken,
            accessToken: accessToken, refreshToken: refreshToken, tokenSecret: tokenSecret, expiresIn: expiresIn)
    }

    /// The provider entry this credential adds.
    var providerInfo: ProviderUserInfo {
        ProviderUserInfo(providerId: providerId, rawId: sub, email: email, displayName: displayName, photoUrl: photoUrl, screenName: screenName)
    }

    /// True when the provider is authoritative for the asserted email (and asserts it verified).
    var trusted: Bool {
        guard let email else { return false }
        // Apple is trusted even without the claim; other trusted IdPs must not say "unverified".
        if providerId == "apple.com" { return true }
        return emailVerified && TrustPolicy.isTrusted(providerId: providerId, email: email)
    }
}
