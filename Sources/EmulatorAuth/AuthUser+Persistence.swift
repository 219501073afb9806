import EmulatorCore

/// Lossless JSON forms of the Auth data, for export/import and the `--data-dir` journal.
/// Unlike the wire shapes they keep hash parameters and refresh-token records.
extension AuthUser {
    /// The lossless JSON form.
    var persisted: JSON {
        var o: UTF8Dictionary<JSON> = [
            "localId": .string(localId), "emailVerified": .bool(emailVerified), "disabled": .bool(disabled),
            "validSince": .int(validSince), "createdAt": .int(createdAt), "emailLinkSignin": .bool(emailLinkSignin),
            "providers": .array(providers.map(\.json)),
        ]
        func opt(_ k: String, _ v: String?) { if let v { o[k] = .string(v) } }
        opt("email", email)
        opt("displayName", displayName)
        opt("photoUrl", photoUrl)
        opt("phoneNumber", phoneNumber)
        opt("customAttributes", customAttributes)
        opt("tenantId", tenantId)
        if let lastLoginAt { o["lastLoginAt"] = .int(lastLoginAt) }
        if let lastRefreshAt { o["lastRefreshAt"] = .int(lastRefreshAt) }
        if let password { o["password"] = password.persisted }
        if !mfaInfo.isEmpty { o["mfaInfo"] = .array(mfaInfo.map(\.persisted)) }
        return .object(o)
    }

    /// Decodes the lossless form, naming what is missing.
    init(persisted j: JSON) throws {
        guard let id = j["localId"]?.stringValue, let vs = j["validSince"]?.intValue, let ca = j["createdAt"]?.intValue else {
            throw EmulatorError.invalidArgument("Auth import: a user needs localId, validSince and createdAt.")
        }
        self.init(localId: id, now: Timestamp(seconds: vs))
        createdAt = ca
        email = j["email"]?.stringValue
        emailVerified = j["emailVerified"]?.boolValue ?? false
        displayName = j["displayName"]?.stringValue
        photoUrl = j["photoUrl"]?.stringValue
        phoneNumber = j["phoneNumber"]?.stringValue
        disabled = j["disabled"]?.boolValue ?? false
        customAttributes = j["customAttributes"]?.stringValue
        tenantId = j["tenantId"]?.stringValue
        lastLoginAt = j["lastLoginAt"]?.intValue
        // Bounded so rendering it as a timestamp can never overflow.
        lastRefreshAt = j["lastRefreshAt"]?.intValue.flatMap { $0.magnitude < 1 << 50 ? $0 : nil }
        emailLinkSignin = j["emailLinkSignin"]?.boolValue ?? false
        providers = try (j["providers"]?.arrayValue ?? []).map { p in
            guard let pid = p["providerId"]?.stringValue, let raw = p["rawId"]?.stringValue else {
                throw EmulatorError.invalidArgument("Auth import: a provider needs providerId and rawId.")
            }
            return ProviderUserInfo(
                providerId: pid, rawId: raw, email: p["email"]?.stringValue, displayName: p["displayName"]?.stringValue,
                photoUrl: p["photoUrl"]?.stringValue, phoneNumber: p["phoneNumber"]?.stringValue, screenName: p["screenName"]?.stringValue)
        }
        if let pw = j["password"], !pw.isNull { password = try PasswordHash(persisted: pw) }
        mfaInfo = try (j["mfaInfo"]?.arrayValue ?? []).map(MfaEnrollment.init(persisted:))
    }
}

extension PasswordHash {
    /// The lossless JSON form.
    var persisted: JSON {
        let p = parameters
        return [
            "algorithm": .string(algorithm), "hash": .string(Base64.encode(hash)), "salt": .string(Base64.encode(salt)),
            "rounds": .int(Int64(p.rounds)), "memoryCost": .int(Int64(p.memoryCost)), "signerKey": .string(Base64.encode(p.signerKey)),
            "saltSeparator": .string(Base64.encode(p.saltSeparator)), "cpuMemCost": .int(Int64(p.cpuMemCost)),
            "blockSize": .int(Int64(p.blockSize)), "parallelization": .int(Int64(p.parallelization)), "dkLen": .int(Int64(p.dkLen)),
            "saltFirst": .bool(p.saltFirst),
        ]
    }

    /// Decodes the lossless form, naming what is missing.
    init(persisted j: JSON) throws {
        guard let alg = j["algorithm"]?.stringValue, let h = j["hash"]?.stringValue.flatMap(Base64.decode),
            let s = j["salt"]?.stringValue.flatMap(Base64.decode)
        else { throw EmulatorError.invalidArgument("Auth import: a password needs algorithm, hash and salt.") }
        var p = HashParameters()
        p.rounds = Int(j["rounds"]?.intValue ?? 0)
        p.memoryCost = Int(j["memoryCost"]?.intValue ?? 0)
        p.signerKey = j["signerKey"]?.stringValue.flatMap(Base64.decode) ?? []
        p.saltSeparator = j["saltSeparator"]?.stringValue.flatMap(Base64.decode) ?? []
        p.cpuMemCost = Int(j["cpuMemCost"]?.intValue ?? 0)
        p.blockSize = Int(j["blockSize"]?.intValue ?? 0)
        p.parallelization = Int(j["parallelization"]?.intValue ?? 0)
        p.dkLen = Int(j["dkLen"]?.intValue ?? 0)
        p.saltFirst = j["saltFirst"]?.boolValue ?? false
        self.init(algorithm: alg, hash: h, salt: s, parameters: p)
    }
}

extension RefreshRecord {
    /// The lossless JSON form.
    var persisted: JSON {
        var o: UTF8Dictionary<JSON> = [
            "localId": .string(localId), "provider": .string(provider), "extraClaims": .object(extraClaims), "issuedAt": .int(issuedAt),
        ]
        if let f = secondFactor { o["secondFactor"] = ["kind": .string(f.kind), "enrollmentId": .string(f.enrollmentId)] }
        return .object(o)
    }

    /// Decodes the lossless form, naming what is missing.
    init(persisted j: JSON) throws {
        guard let id = j["localId"]?.stringValue, let p = j["provider"]?.stringValue, let at = j["issuedAt"]?.intValue else {
            throw EmulatorError.invalidArgument("Auth import: a refresh token needs localId, provider and issuedAt.")
        }
        let factor = j["secondFactor"].flatMap { f in
            f["kind"]?.stringValue.flatMap { k in f["enrollmentId"]?.stringValue.map { SecondFactor(kind: k, enrollmentId: $0) } }
        }
        self.init(localId: id, provider: p, extraClaims: j["extraClaims"]?.objectValue ?? [:], issuedAt: at, secondFactor: factor)
    }
}

extension OobCode {
    /// The lossless JSON form.
    var persisted: JSON {
        var o: UTF8Dictionary<JSON> = [
            "code": .string(code), "requestType": .string(requestType), "email": .string(email), "oobLink": .string(oobLink),
        ]
        if let newEmail { o["newEmail"] = .string(newEmail) }
        if let localId { o["localId"] = .string(localId) }
        if issuedAt > 0 { o["issuedAt"] = .int(issuedAt) }
        return .object(o)
    }

    /// Decodes the lossless form, naming what is missing.
    init(persisted j: JSON) throws {
        guard let c = j["code"]?.stringValue, let t = j["requestType"]?.stringValue, let e = j["email"]?.stringValue else {
            throw EmulatorError.invalidArgument("Auth import: an OOB code needs code, requestType and email.")
        }
        self.init(
            code: c, requestType: t, email: e, newEmail: j["newEmail"]?.stringValue, localId: j["localId"]?.stringValue,
            oobLink: j["oobLink"]?.stringValue ?? "", issuedAt: j["issuedAt"]?.intValue ?? 0)
    }
}

extension SmsCode {
    /// The lossless JSON form.
    var persisted: JSON {
        var o: UTF8Dictionary<JSON> = ["sessionInfo": .string(sessionInfo), "phoneNumber": .string(phoneNumber), "code": .string(code)]
        if issuedAt > 0 { o["issuedAt"] = .int(issuedAt) }
        if purpose != .signIn { o["purpose"] = .string(purpose.rawValue) }
        if let localId { o["localId"] = .string(localId) }
        if let mfaEnrollmentId { o["mfaEnrollmentId"] = .string(mfaEnrollmentId) }
        if let mfaPendingCredential { o["mfaPendingCredential"] = .string(mfaPendingCredential) }
        return .object(o)
    }

    /// Decodes the lossless form, naming what is missing.
    init(persisted j: JSON) throws {
        guard let s = j["sessionInfo"]?.stringValue, let p = j["phoneNumber"]?.stringValue, let c = j["code"]?.stringValue else {
            throw EmulatorError.invalidArgument("Auth import: an SMS code needs sessionInfo, phoneNumber and code.")
        }
        var purpose = Purpose.signIn
        if let raw = j["purpose"]?.stringValue {
            guard let p = Purpose(rawValue: raw) else { throw EmulatorError.invalidArgument("Auth import: unknown SMS code purpose \(raw).") }
            purpose = p
        }
        self.init(
            sessionInfo: s, phoneNumber: p, code: c, issuedAt: j["issuedAt"]?.intValue ?? 0, purpose: purpose,
            localId: j["localId"]?.stringValue, mfaEnrollmentId: j["mfaEnrollmentId"]?.stringValue,
            mfaPendingCredential: j["mfaPendingCredential"]?.stringValue)
    }
}

extension MfaSession {
    /// The lossless JSON form.
    var persisted: JSON {
        var o: UTF8Dictionary<JSON> = ["id": .string(id), "kind": .string(kind.rawValue), "localId": .string(localId), "issuedAt": .int(issuedAt)]
        if let provider { o["provider"] = .string(provider) }
        if let method { o["method"] = .string(method) }
        if let secret { o["secret"] = .string(Base64.encode(secret)) }
        return .object(o)
    }

    /// Decodes the lossless form, naming what is missing.
    init(persisted j: JSON) throws {
        guard let id = j["id"]?.stringValue, let k = j["kind"]?.stringValue.flatMap(Kind.init(rawValue:)),
            let uid = j["localId"]?.stringValue, let at = j["issuedAt"]?.intValue
        else { throw EmulatorError.invalidArgument("Auth import: an MFA session needs id, kind, localId and issuedAt.") }
        self.init(
            id: id, kind: k, localId: uid, provider: j["provider"]?.stringValue, method: j["method"]?.stringValue,
            secret: j["secret"]?.stringValue.flatMap(Base64.decode), issuedAt: at)
    }
}
