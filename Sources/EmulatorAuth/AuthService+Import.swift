import EmulatorCore

extension AuthService {
    /// `accounts:batchCreate` (importUsers): users with optional password hashes in any of
    /// `PasswordHash.importable`; rows that fail are reported in `error[]`, the rest are stored.
    /// Imports fire no events, as in Firebase. Rows may carry phone second factors (`mfaInfo`;
    /// such a user needs a verified email, as production requires).
    public func batchCreate(projectId: String, tenantId: String? = nil, body raw: UTF8Dictionary<JSON>) throws -> JSON {
        let b = Body(raw)
        let sc = try scope(projectId, tenantId, b)
        let pol = try policy(sc)
        guard let rows = raw["users"]?.arrayValue, !rows.isEmpty else { throw EmulatorError.authBadRequest("MISSING_USER_ACCOUNT") }
        guard rows.count <= 1000 else { throw EmulatorError.authBadRequest("EXCEED_MAXIMUM_USER_COUNT") }
        let algorithm = b.nonEmpty("hashAlgorithm")?.uppercased()
        if let a = algorithm, !PasswordHash.importable.contains(a) { throw EmulatorError.authBadRequest("INVALID_HASH_ALGORITHM") }
        var params = HashParameters()
        params.rounds = Int(b.int("rounds") ?? 0)
        params.memoryCost = Int(b.int("memoryCost") ?? 0)
        params.signerKey = b.string("signerKey").flatMap(Base64.decode) ?? []
        params.saltSeparator = b.string("saltSeparator").flatMap(Base64.decode) ?? []
        params.cpuMemCost = Int(b.int("cpuMemCost") ?? 0)
        params.blockSize = Int(b.int("blockSize") ?? 0)
        params.parallelization = Int(b.int("parallelization") ?? 0)
        params.dkLen = Int(b.int("dkLen") ?? 0)
        params.saltFirst = b.string("passwordHashOrder") == "SALT_AND_PASSWORD"
        if algorithm == "SCRYPT" && (params.signerKey.isEmpty || !(1...8).contains(params.rounds) || !(1...14).contains(params.memoryCost)) {
            throw EmulatorError.authBadRequest("INVALID_HASH_PARAMETERS : SCRYPT needs signerKey, rounds 1..8 and memoryCost 1..14")
        }
        // Bounds keep a hostile import from turning every later sign-in into a CPU or memory sink.
        if algorithm == "PBKDF2_SHA256" && !(1...120_000).contains(params.rounds) {
            throw EmulatorError.authBadRequest("INVALID_HASH_PARAMETERS : PBKDF2_SHA256 needs rounds 1..120000")
        }
        if algorithm == "STANDARD_SCRYPT" {
            let n = params.cpuMemCost, r = params.blockSize, p = params.parallelization
            guard n >= 2, n & (n - 1) == 0, r >= 1, p >= 1, n <= 1 << 20, r <= 32, p <= 16, 128 * n * r * p <= 64 << 20 else {
                throw EmulatorError.authBadRequest(
                    "INVALID_HASH_PARAMETERS : STANDARD_SCRYPT needs cpuMemCost a power of two and at most 64 MiB of memory")
            }
        }
        let now = self.now(projectId)
        var errors: [JSON] = []
        var users: [(Int, AuthUser)] = []
        for (i, row) in rows.enumerated() {
            do { users.append((i, try importedUser(sc, row, algorithm: algorithm, params: params, now: now))) } catch let e as EmulatorError {
                errors.append(["index": .int(Int64(i)), "message": .string(e.message)])
            }
        }
        let allowDup = pol.allowDuplicateEmails
        try write(sc) { st in
            for (i, u) in users {
                if !allowDup, let em = u.email, let other = st.user(email: em), other.localId != u.localId {
                    errors.append(["index": .int(Int64(i)), "message": "email exists in other account in database"])
                    continue
                }
                st.put(u)
            }
        }
        return errors.isEmpty
            ? ["kind": "identitytoolkit#UploadAccountResponse"]
            : [
                "kind": "identitytoolkit#UploadAccountResponse",
                "error": .array(errors.sorted { ($0["index"]?.intValue ?? 0) < ($1["index"]?.intValue ?? 0) }),
            ]
    }

    private func importedUser(_ sc: AuthScope, _ row: JSON, algorithm: String?, params: HashParameters, now: Timestamp) throws -> AuthUser {
        guard case .object(let o) = row else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : user must be an object") }
        let r = Body(o)
        guard let uid = r.nonEmpty("localId"), uid.count <= 128 else { throw EmulatorError.authBadRequest("localId is missing") }
        if let t = r.nonEmpty("tenantId"), t != sc.tenantId { throw EmulatorError.authBadRequest("TENANT_ID_MISMATCH") }
        var u = newUser(sc, uid: uid)
        u.validSince = now.seconds
        u.createdAt = now.milliseconds
        if let em = r.string("email") { u.email = try AuthValidation.email(em) }
        u.emailVerified = r.bool("emailVerified") ?? false
        u.displayName = r.nonEmpty("displayName")
        u.photoUrl = r.nonEmpty("photoUrl")
        u.disabled = r.bool("disabled") ?? false
        if let p = r.nonEmpty("phoneNumber") {
            try AuthValidation.phone(p)
            u.phoneNumber = p
            u.upsertProvider(ProviderUserInfo(providerId: "phone", rawId: p, phoneNumber: p))
        }
        if let c = r.nonEmpty("customAttributes") {
            _ = try Self.validateClaims(c)
            u.customAttributes = c
        }
        if let t = r.int("createdAt") { u.createdAt = t }
        if let t = r.int("lastLoginAt") { u.lastLoginAt = t }
        if let h = r.nonEmpty("passwordHash") {
            guard let algorithm else { throw EmulatorError.authBadRequest("MISSING_HASH_ALGORITHM") }
            guard let hash = Base64.decode(h) else { throw EmulatorError.authBadRequest("INVALID_PASSWORD_HASH") }
            let salt = r.string("salt").flatMap(Base64.decode) ?? []
            if let problem = PasswordHash.importProblem(algorithm: algorithm, hash: hash) {
                throw EmulatorError.authBadRequest("INVALID_PASSWORD_HASH : \(problem)")
            }
            u.password = PasswordHash(algorithm: algorithm, hash: hash, salt: salt, parameters: params)
            if let em = u.email {
                u.upsertProvider(ProviderUserInfo(providerId: "password", rawId: em, email: em, displayName: u.displayName, photoUrl: u.photoUrl))
            }
        }
        for p in r.o["providerUserInfo"]?.arrayValue ?? [] {
            let pb = Body(p.objectValue ?? [:])
            guard let pid = pb.nonEmpty("providerId"), let rid = pb.nonEmpty("rawId") else { continue }
            if pid == "password" || pid == "phone" { continue }
            u.upsertProvider(
                ProviderUserInfo(
                    providerId: pid, rawId: rid, email: pb.string("email"), displayName: pb.string("displayName"), photoUrl: pb.string("photoUrl")))
        }
        if let mfa = o["mfaInfo"], !mfa.isNull, mfa.arrayValue?.isEmpty != true {
            guard u.email != nil else { throw EmulatorError.authBadRequest("Second factor account requires email to be presented.") }
            guard u.emailVerified else { throw EmulatorError.authBadRequest("Second factor account requires email to be verified.") }
            guard let rows = mfa.arrayValue else { throw EmulatorError.authBadRequest("INVALID_ARGUMENT : mfaInfo must be a list") }
            let ids = env(sc.projectId).ids
            let filled: [JSON] = try rows.map { f in
                guard case .object(var e) = f, e["phoneInfo"]?.stringValue != nil else {
                    throw EmulatorError.authBadRequest("Second factor not supported.")
                }
                if e["mfaEnrollmentId"]?.stringValue?.isEmpty ?? true { e["mfaEnrollmentId"] = .string(ids.uid()) }
                return .object(e)
            }
            u.mfaInfo = try adminEnrollments(["enrollments": .array(filled)], existing: [], now: now, ids: ids)
        }
        return u
    }
}
