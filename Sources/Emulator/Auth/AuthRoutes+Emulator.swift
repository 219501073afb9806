import EmulatorAuth
import EmulatorCore
import EmulatorHTTP

extension AuthRoutes {
    /// Public keys: JWKS and Google's securetoken x509 map shape.
    static func registerKeys(_ r: inout Router, _ s: EmulatorServices) {
        let auth = s.auth
        r.get("/emulator/v1/jwks.json") { _, _ in
            do { return json(try auth.keyring.jwks()) } catch { throw EmulatorError.internal("Signing key unavailable.") }
        }
        r.get("/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com") { _, _ in
            do { return json(try auth.keyring.x509(notBefore: s.startedAt.seconds - 3600)) } catch {
                throw EmulatorError.internal("Signing key unavailable.")
            }
        }
        r.get("/robot/v1/metadata/jwk/securetoken@system.gserviceaccount.com") { _, _ in
            do { return json(try auth.keyring.jwks()) } catch { throw EmulatorError.internal("Signing key unavailable.") }
        }
    }

    /// `/emulator/v1/projects/{p}/…` Auth operations and the `/emulator/action` link target.
    static func registerEmulator(_ r: inout Router, _ s: EmulatorServices) {
        let auth = s.auth
        for base in ["/emulator/v1/projects/{project}", "/emulator/v1/projects/{project}/tenants/{tenant}"] {
            r.delete("\(base)/accounts") { _, m in
                try auth.deleteAllAccounts(projectId: m["project"], tenantId: m.params["tenant"])
                return json([:])
            }
            r.get("\(base)/oobCodes") { _, m in json(try auth.listOobCodes(projectId: m["project"], tenantId: m.params["tenant"])) }
            r.get("\(base)/verificationCodes") { _, m in json(try auth.listVerificationCodes(projectId: m["project"], tenantId: m.params["tenant"])) }
            r.post("\(base)/customTokens") { req, m in
                json(try auth.mintCustomToken(projectId: m["project"], tenantId: m.params["tenant"], body: try AuthCall.decodeBody(req)))
            }
        }
        r.get("/emulator/v1/projects/{project}/config") { _, m in json(auth.getConfig(projectId: m["project"])) }
        r.patch("/emulator/v1/projects/{project}/config") { req, m in
            json(try auth.updateConfig(projectId: m["project"], patch: try AuthCall.decodeBody(req)))
        }
        r.post("/emulator/v1/projects/{project}/accounts:purgeAnonymous") { req, m in
            let b = try AuthCall.decodeBody(req)
            guard let secs = b["olderThanSeconds"]?.intValue ?? b["olderThanSeconds"]?.stringValue.flatMap({ Int64($0) }) else {
                throw EmulatorError.invalidArgument("olderThanSeconds is required and must be a non-negative integer.")
            }
            let uids = try await auth.purgeAnonymous(projectId: m["project"], olderThanSeconds: secs)
            return json(["deletedUids": .array(uids.map { .string($0) })])
        }
        // Admin SDK project config (`Bearer owner`): the same settings in the v2 shape.
        r.get("\(itk)/v2/projects/{project}/config") { req, m in
            let c = try AuthCall.make(req, s, .owner, pathProject: m["project"])
            return json(v2Config(auth.getConfig(projectId: c.projectId), c.projectId))
        }
        r.patch("\(itk)/v2/projects/{project}/config") { req, m in
            let c = try AuthCall.make(req, s, .owner, pathProject: m["project"])
            return json(v2Config(try auth.updateConfig(projectId: c.projectId, patch: c.body), c.projectId))
        }
        r.get("/emulator/action") { req, _ in
            try await action(req, s)
        }
    }

    /// Adds the resource `name` the v2 API reports.
    static func v2Config(_ config: JSON, _ project: String) -> JSON {
        var o = config.objectValue ?? [:]
        o["name"] = .string("projects/\(project)/config")
        return .object(o)
    }

    /// Applies an OOB code like the real action page: JSON result, or a 303 to `continueUrl`.
    static func action(_ req: HTTPRequest, _ s: EmulatorServices) async throws -> HTTPResponse {
        func fail(_ msg: String) -> HTTPResponse {
            .json(
                ["authEmulator": ["error": .string(msg), "instructions": "Open the link from /emulator/v1/projects/{project}/oobCodes unchanged."]],
                status: 400, pretty: true)
        }
        guard let key = req.query("apiKey"), !key.isEmpty else { return fail("missing apiKey query parameter") }
        guard let code = req.query("oobCode"), !code.isEmpty else { return fail("missing oobCode query parameter") }
        let project = req.query("projectId") ?? s.projects.projectId(forAPIKey: key)
        let tenant = req.query("tenantId").flatMap { $0.isEmpty ? nil : $0 }
        let mode = req.query("mode") ?? ""
        var response: JSON
        switch mode {
        case "signIn":
            guard let cont = req.query("continueUrl") else { return fail("missing continueUrl query parameter") }
            let rest = req.queryItems.filter { $0.name != "continueUrl" && $0.name != "projectId" }.map {
                "\($0.name)=\(AuthService.percentEncode($0.value))"
            }.joined(separator: "&")
            var r = HTTPResponse(status: 303)
            r.headers.set("Location", cont + (cont.contains("?") ? "&" : "?") + rest)
            return r
        case "resetPassword":
            guard let pw = req.query("newPassword"), pw != "NEW_PASSWORD_HERE" else {
                return fail("missing newPassword query parameter: append &newPassword=NEW_PASSWORD_HERE with a real password")
            }
            try s.auth.applyOobCode(projectId: project, tenantId: tenant, code: code, newPassword: pw)
            response = ["authEmulator": ["success": "The password has been updated.", "email": .string("")]]
        case "verifyEmail", "verifyAndChangeEmail", "recoverEmail":
            let oob = try s.auth.applyOobCode(projectId: project, tenantId: tenant, code: code, newPassword: nil)
            response = ["authEmulator": ["success": "The email has been verified.", "email": .string(oob.newEmail ?? oob.email)]]
        default:
            return fail("Invalid mode")
        }
        if let cont = req.query("continueUrl") {
            var r = HTTPResponse(status: 303)
            r.headers.set("Location", cont)
            return r
        }
        return json(response)
    }

    /// Operations the emulator does not implement: 501 naming the operation.
    static func registerUnimplemented(_ r: inout Router) {
        let posts = [
            "v1/accounts:issueSamlResponse", "v1/accounts:signInWithGameCenter", "v1/accounts:verifyIosClient",
            "v2/accounts:revokeToken", "v2/accounts/passkeyEnrollment:start", "v2/accounts/passkeyEnrollment:finalize",
            "v2/accounts/passkeySignIn:start", "v2/accounts/passkeySignIn:finalize",
        ]
        for p in posts {
            let op = "identitytoolkit." + p.dropFirst(3).replacingColonsAndSlashes()
            r.post("\(itk)/\(p)") { _, _ in throw notImplemented(op) }
        }
        for p in ["v1/sessionCookiePublicKeys", "v2/passwordPolicy", "v2/recaptchaConfig", "v2/defaultSupportedIdps"] {
            let op = "identitytoolkit." + p.dropFirst(3).replacingColonsAndSlashes()
            r.get("\(itk)/\(p)") { _, _ in throw notImplemented(op) }
        }
        r.add("*", "\(itk)/v2/projects/{project=**}") { req, _ in throw notImplemented("identitytoolkit.projects (\(req.method) \(req.path))") }
        r.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/signOutUser") { _, _ in throw notImplemented("signOutUser") }
        // Tenant operations not modelled (IdP configs, IAM, ...): 501 rather than 404 so Admin SDK users see why.
        r.add("*", "\(itk)/v1/projects/{project}/tenants/{rest=**}") { req, _ in
            throw notImplemented("identitytoolkit.projects.tenants (\(req.method) \(req.path))")
        }
        r.add("*", "/emulator/v1/projects/{project}/tenants/{rest=**}") { req, _ in
            throw notImplemented("emulator.projects.tenants (\(req.method) \(req.path))")
        }
    }

    /// 501 `NOT_IMPLEMENTED` naming the operation, in Identity Toolkit style.
    static func notImplemented(_ op: String) -> EmulatorError {
        EmulatorError(
            .unimplemented, "\(op) is not implemented in the Auth Emulator.", style: .identityToolkit(reason: "unimplemented", omitStatus: false))
    }
}

extension Substring {
    /// `accounts/mfaSignIn:start` → `accounts.mfaSignIn.start` (operation ids).
    func replacingColonsAndSlashes() -> String { String(map { $0 == ":" || $0 == "/" ? "." : $0 }) }
}
