import EmulatorCore

extension AuthPool {
    /// The whole pool: `{users, refreshTokens, oobCodes, smsCodes, mfaSessions}` (maps keyed by
    /// id; code lists in issue order).
    var exported: UTF8Dictionary<JSON> {
        [
            "users": .object(users.mapValues(\.persisted)),
            "refreshTokens": .object(refreshTokens.mapValues(\.persisted)),
            "oobCodes": .array(oobOrder.compactMap { oobCodes[$0]?.persisted }),
            "smsCodes": .array(smsOrder.compactMap { smsCodes[$0]?.persisted }),
            "mfaSessions": .array(mfaSessions.keys.sorted().compactMap { mfaSessions[$0]?.persisted }),
        ]
    }

    /// Applies a pool journal entry or export: keyed maps upsert, `null` values delete.
    mutating func apply(journal j: UTF8Dictionary<JSON>) throws {
        if j["reset"] == true { removeAllUsers() }
        for (uid, u) in j["users"]?.objectValue ?? [:] {
            if u.isNull { remove(uid) } else { put(try AuthUser(persisted: u)) }
        }
        for (t, r) in j["refreshTokens"]?.objectValue ?? [:] { setRefresh(t, r.isNull ? nil : try RefreshRecord(persisted: r)) }
        for (c, v) in j["oobCodes"]?.objectValue ?? [:] {
            if v.isNull {
                _ = takeOob(c)
            } else {
                _ = takeOob(c)
                addOob(try OobCode(persisted: v))
            }
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
        for (id, v) in j["mfaSessions"]?.objectValue ?? [:] { setMfaSession(id, v.isNull ? nil : try MfaSession(persisted: v)) }
        for v in j["mfaSessions"]?.arrayValue ?? [] {
            let s = try MfaSession(persisted: v)
            setMfaSession(s.id, s)
        }
    }

    /// The journal fields for what changed since the journal last looked (`forgetChanges` after
    /// the journal took them; `rollBack` when it refused them).
    func journalFields() -> UTF8Dictionary<JSON>? {
        let c = changes
        guard !c.isEmpty else { return nil }
        if c.all {
            var e = exported
            e["reset"] = true
            return e
        }
        var o: UTF8Dictionary<JSON> = [:]
        func delta<V>(_ keys: Set<String>, _ map: [String: V], _ f: (V) -> JSON) -> JSON {
            .object(Dictionary(uniqueKeysWithValues: keys.map { ($0, map[$0].map(f) ?? .null) }))
        }
        if !c.users.isEmpty { o["users"] = delta(c.users, users, \.persisted) }
        if !c.refresh.isEmpty { o["refreshTokens"] = delta(c.refresh, refreshTokens, \.persisted) }
        if !c.oob.isEmpty { o["oobCodes"] = delta(c.oob.touched, oobCodes, \.persisted) }
        if !c.sms.isEmpty { o["smsCodes"] = delta(c.sms.touched, smsCodes, \.persisted) }
        if !c.mfa.isEmpty { o["mfaSessions"] = delta(c.mfa, mfaSessions, \.persisted) }
        return o
    }
}

extension AuthProjectState {
    /// The whole state: the project pool's fields, `config`, and `tenants: {id: {config, <pool>}}`.
    var exported: JSON {
        var o = pool.exported
        o["config"] = config.json
        if !tenants.isEmpty {
            o["tenants"] = .object(
                tenants.mapValues { t in
                    var e = t.pool.exported
                    e["config"] = t.config.settingsJSON
                    return .object(e)
                })
        }
        return .object(o)
    }

    /// Rebuilds a state from `exported`; validates everything before returning.
    init(exported j: JSON) throws {
        self.init()
        guard case .object = j else { throw EmulatorError.invalidArgument("Auth import: expected an object.") }
        try apply(journal: j)
        forgetChanges()
    }

    /// Applies a journal entry (or an export, which is the same shape with everything in it).
    mutating func apply(journal j: JSON) throws {
        guard case .object(let o) = j else { throw EmulatorError.invalidArgument("Auth import: expected an object.") }
        try pool.apply(journal: o)
        if case .object(let c)? = o["config"] { try config.apply(c) }
        for (id, v) in o["tenants"]?.objectValue ?? [:] {
            guard case .object(let t) = v else {
                if v.isNull { removeTenant(id) }
                continue
            }
            if case .object(let c)? = t["config"] {
                setTenant(id, try TenantConfig(json: c))
            } else if tenants[id] == nil {
                setTenant(id, TenantConfig())
            }
            try withPool(id) { try $0.apply(journal: t) }
        }
    }

    /// Drops all change tracking (after imports and replays).
    mutating func forgetChanges() {
        pool.changes = AuthChangeSet()
        for id in tenants.keys { tenants[id]?.pool.changes = AuthChangeSet() }
        changes = ProjectChangeSet()
    }

    /// Drops the change tracking of one write (only the pools it touched: a write costs what it changes).
    mutating func forgetWriteChanges() {
        pool.changes = AuthChangeSet()
        for id in changes.tenantPools { tenants[id]?.pool.changes = AuthChangeSet() }
        changes = ProjectChangeSet()
    }

    /// The journal entry for what changed since the journal last looked, or nil for nothing.
    func journalEntry() -> JSON? {
        var o = pool.journalFields() ?? [:]
        let c = changes
        if c.config { o["config"] = config.json }
        var touched: UTF8Dictionary<JSON> = [:]
        for id in c.tenantConfigs.union(c.tenantPools) {
            guard tenants[id] != nil else {
                touched[id] = .null
                continue
            }
            var e = tenants[id]?.pool.journalFields() ?? [:]
            if c.tenantConfigs.contains(id), let t = tenants[id] { e["config"] = t.config.settingsJSON }
            touched[id] = .object(e)
        }
        if !touched.isEmpty { o["tenants"] = .object(touched) }
        return o.isEmpty ? nil : .object(o)
    }

    /// True when there is anything worth exporting.
    var hasData: Bool { !pool.isEmpty || !tenants.isEmpty || config != AuthProjectConfig() }
}
