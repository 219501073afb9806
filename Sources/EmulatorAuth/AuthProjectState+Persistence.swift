import EmulatorCore

extension AuthProjectState {
    /// The whole state: `{users, refreshTokens, oobCodes, smsCodes, config}` (maps keyed by id;
    /// code lists in issue order).
    var exported: JSON {
        ["users": .object(users.mapValues(\.persisted)),
         "refreshTokens": .object(refreshTokens.mapValues(\.persisted)),
         "oobCodes": .array(oobOrder.compactMap { oobCodes[$0]?.persisted }),
         "smsCodes": .array(smsOrder.compactMap { smsCodes[$0]?.persisted }),
         "config": config.json]
    }

    /// Rebuilds a state from `exported`; validates everything before returning.
    init(exported j: JSON) throws {
        self.init()
        guard case .object = j else { throw EmulatorError.invalidArgument("Auth import: expected an object.") }
        try apply(journal: j)
        changes = AuthChangeSet()
    }

    /// Applies a journal entry (or an export, which is the same shape with everything in it):
    /// keyed maps upsert, `null` values delete.
    mutating func apply(journal j: JSON) throws {
        if j["reset"] == true { removeAllUsers() }
        for (uid, u) in j["users"]?.objectValue ?? [:] {
            if u.isNull { remove(uid) } else { put(try AuthUser(persisted: u)) }
        }
        for (t, r) in j["refreshTokens"]?.objectValue ?? [:] { setRefresh(t, r.isNull ? nil : try RefreshRecord(persisted: r)) }
        for (c, v) in j["oobCodes"]?.objectValue ?? [:] {
            if v.isNull { _ = takeOob(c) } else { _ = takeOob(c); addOob(try OobCode(persisted: v)) }
        }
        for v in j["oobCodes"]?.arrayValue ?? [] {
            let c = try OobCode(persisted: v)
            _ = takeOob(c.code)
            addOob(c)
        }
        for (s, v) in j["smsCodes"]?.objectValue ?? [:] { setSms(s, v.isNull ? nil : try SmsCode(persisted: v)) }
        for v in j["smsCodes"]?.arrayValue ?? [] {
            let c = try SmsCode(persisted: v)
            setSms(c.sessionInfo, c)
        }
        if case .object(let c)? = j["config"] { try config.apply(c) }
    }

    /// The journal entry for what changed since the last call, then forgets the changes.
    mutating func takeJournalEntry() -> JSON? {
        let c = changes
        guard !c.isEmpty else { return nil }
        changes = AuthChangeSet()
        if c.all {
            var e = exported.objectValue ?? [:]
            e["reset"] = true
            return .object(e)
        }
        var o: [String: JSON] = [:]
        if !c.users.isEmpty { o["users"] = .object(Dictionary(uniqueKeysWithValues: c.users.map { ($0, users[$0]?.persisted ?? .null) })) }
        if !c.refresh.isEmpty { o["refreshTokens"] = .object(Dictionary(uniqueKeysWithValues: c.refresh.map { ($0, refreshTokens[$0]?.persisted ?? .null) })) }
        if !c.oob.isEmpty { o["oobCodes"] = .object(Dictionary(uniqueKeysWithValues: c.oob.map { ($0, oobCodes[$0]?.persisted ?? .null) })) }
        if !c.sms.isEmpty { o["smsCodes"] = .object(Dictionary(uniqueKeysWithValues: c.sms.map { ($0, smsCodes[$0]?.persisted ?? .null) })) }
        if c.config { o["config"] = config.json }
        return .object(o)
    }

    /// True when there is anything worth exporting.
    var hasData: Bool { !users.isEmpty || !oobCodes.isEmpty || !smsCodes.isEmpty || config != AuthProjectConfig() }
}
