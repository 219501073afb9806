import EmulatorAuth
import EmulatorCore
import EmulatorHTTP

/// One decoded Identity Toolkit request: who calls, for which project, with what body
/// (keys camelCased, integer enums named). Built by `AuthCall.make`, which applies the
/// emulator's caller rules.
struct AuthCall {
    /// How a route authenticates callers.
    enum Security {
        /// API key or Bearer (end-user ops).
        case apiKeyOrBearer
        /// API key only (securetoken).
        case apiKey
        /// `Bearer owner` required (project-scoped admin ops).
        case owner
        /// No credentials (emulator-only ops).
        case none
    }

    /// The project the call acts on (path, body `targetProjectId` for admins, or API key).
    let projectId: String
    /// True for `Bearer owner` / `ya29.*` callers on routes that honour them.
    let privileged: Bool
    /// The normalised body, without `targetProjectId`.
    let body: UTF8Dictionary<JSON>
    /// The path's tenant (`…/tenants/{tenant}/…`); the service reconciles it with the body's
    /// `tenantId` and the tenant claims of tokens.
    var tenantId: String? = nil

    /// An Identity Toolkit error that keeps `status` (401/403/400-argument flavours).
    static func itkError(_ code: ErrorCode, _ message: String, reason: String) -> EmulatorError {
        EmulatorError(code, message, style: .identityToolkit(reason: reason, omitStatus: false))
    }

    /// Applies the caller rules and decodes the body.
    static func make(_ req: HTTPRequest, _ s: EmulatorServices, _ security: Security, pathProject: String? = nil, pathTenant: String? = nil) throws
        -> AuthCall
    {
        var privileged = false
        if let bearer = req.bearerToken {
            guard bearer.lowercased() == "owner" || bearer.hasPrefix("ya29.") else {
                throw itkError(
                    .unauthenticated,
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                    reason: "authError")
            }
            privileged = true
        }
        let key = req.query("key") ?? req.headers["x-goog-api-key"]
        switch security {
        case .none: break
        case .apiKey:
            guard let key, !key.isEmpty else { throw itkError(.permissionDenied, "The request is missing a valid API key.", reason: "forbidden") }
        case .apiKeyOrBearer:
            if !privileged && (key ?? "").isEmpty {
                throw itkError(.permissionDenied, "The request is missing a valid API key.", reason: "forbidden")
            }
        case .owner:
            if !privileged {
                throw EmulatorError.authBadRequest("INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
            }
        }
        var body = try decodeBody(req)
        if let target = body["targetProjectId"]?.stringValue, pathProject == nil, !privileged, security != .none {
            _ = target
            throw EmulatorError.authBadRequest("INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id.")
        }
        let project = pathProject ?? (privileged ? body["targetProjectId"]?.stringValue : nil) ?? s.projects.projectId(forAPIKey: key)
        try ResourceId.project(project)  // the Identity Toolkit's entry point for project ids (path or targetProjectId)
        body["targetProjectId"] = nil
        return AuthCall(projectId: project, privileged: privileged && security != .none, body: body, tenantId: pathTenant)
    }

    /// JSON or form-encoded bodies, normalised.
    static func decodeBody(_ req: HTTPRequest) throws -> UTF8Dictionary<JSON> {
        let ct = req.headers["Content-Type"]?.lowercased() ?? ""
        if ct.hasPrefix("application/x-www-form-urlencoded") {
            var o: UTF8Dictionary<JSON> = [:]
            let text = String(decoding: req.body, as: UTF8.self)
            for pair in text.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                o[AuthNormalizer.camel(formDecode(kv[0]))] = .string(kv.count > 1 ? formDecode(kv[1]) : "")
            }
            return o
        }
        let parsed: JSON
        do { parsed = try req.jsonBody() } catch let e as EmulatorError {
            throw AuthCall.itkError(.invalidArgument, e.message, reason: "parseError")
        }
        guard case .object(let o) = AuthNormalizer.normalize(parsed) else {
            throw AuthCall.itkError(.invalidArgument, "Invalid JSON payload received. Expected a JSON object.", reason: "invalid")
        }
        return o
    }

    /// Percent-decodes a form component (`+` is a space).
    static func formDecode(_ s: Substring) -> String { FormDecoding.component(s) }

    /// The emulator's own origin for action links.
    static func origin(_ req: HTTPRequest) -> String { "http://" + (req.headers["Host"] ?? "127.0.0.1:9099") }
}

/// Request normalisation as Firebase's emulator does it: snake_case keys become camelCase and
/// integer `requestType` values become their enum names (Android sends numbers).
enum AuthNormalizer {
    /// `OobReqType` names by their integer value (the Android SDK sends numbers).
    static let requestTypes = [
        "OOB_REQ_TYPE_UNSPECIFIED", "PASSWORD_RESET", "OLD_EMAIL_AGREE", "NEW_EMAIL_ACCEPT", "VERIFY_EMAIL",
        "RECOVER_EMAIL", "EMAIL_SIGNIN", "VERIFY_AND_CHANGE_EMAIL", "REVERT_SECOND_FACTOR_ADDITION",
    ]

    /// `grant_type` → `grantType`.
    static func camel(_ key: String) -> String {
        guard key.contains("_"), !key.hasPrefix("_") else { return key }
        var out = ""
        var upper = false
        for c in key {
            if c == "_" {
                upper = true
                continue
            }
            out += upper ? c.uppercased() : String(c)
            upper = false
        }
        return out
    }

    /// Normalises keys at every level (bounded by the JSON parser's depth limit).
    static func normalize(_ v: JSON) -> JSON {
        switch v {
        case .object(let o):
            var out: UTF8Dictionary<JSON> = [:]
            for (k, x) in o {
                let ck = camel(k)
                if ck == "requestType", let i = x.intValue, i >= 0, Int(i) < requestTypes.count {
                    out[ck] = .string(requestTypes[Int(i)])
                } else if ck == "customAttributes" || ck == "rawUserInfo" || ck == "postBody" {
                    out[ck] = x  // opaque strings / user data: leave alone
                } else {
                    out[ck] = normalize(x)
                }
            }
            return .object(out)
        case .array(let a): return .array(a.map(normalize))
        default: return v
        }
    }
}
