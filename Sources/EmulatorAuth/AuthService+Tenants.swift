import EmulatorCore

extension AuthService {
    /// `POST v2/projects/{p}/tenants`: creates a tenant from the resource in `body` (production's
    /// defaults for what is absent) with a fresh id (`<displayName>-<5 characters>`, lower case).
    public func createTenant(projectId: String, body: UTF8Dictionary<JSON>) throws -> JSON {
        let cfg = try TenantConfig(json: body)
        let ids = env(projectId).ids
        var base = String((cfg.displayName ?? "tenant").lowercased().filter { $0.isASCIIDigit || ("a"..."z").contains($0) || $0 == "-" }.prefix(20))
        if !(base.first?.isLetter ?? false) { base = "tenant" + base }
        let id = try writeProject(projectId) { st -> String in
            var id: String
            repeat { id = base + "-" + ids.string(length: 5, alphabet: "abcdefghijklmnopqrstuvwxyz0123456789") } while st.tenants[id] != nil
            st.setTenant(id, cfg)
            return id
        }
        return cfg.json(projectId: projectId, tenantId: id)
    }

    /// `GET v2/projects/{p}/tenants/{t}` (`TENANT_NOT_FOUND` when unknown or deleted).
    public func getTenant(projectId: String, tenantId: String) throws -> JSON {
        guard let t = readProject(projectId, { $0.tenants[tenantId]?.config }) else { throw Self.tenantNotFound(tenantId) }
        return t.json(projectId: projectId, tenantId: tenantId)
    }

    /// `GET v2/projects/{p}/tenants`: sorted by id, `pageSize` 1–1000 (default 20), `pageToken`
    /// = the last id of the previous page.
    public func listTenants(projectId: String, pageSize: Int?, pageToken: String?) throws -> JSON {
        let size = pageSize ?? 20
        guard (1...1000).contains(size) else { throw EmulatorError.authBadRequest("INVALID_PAGE_SIZE : ((pageSize must be between 1 and 1000.))") }
        let all = readProject(projectId) { st in
            st.tenants.keys.sorted().filter { id in pageToken.map { id > $0 } ?? true }.compactMap { id in st.tenants[id].map { (id, $0.config) } }
        }
        let page = all.prefix(size)
        var o: UTF8Dictionary<JSON> = ["tenants": .array(page.map { $0.1.json(projectId: projectId, tenantId: $0.0) })]
        if all.count > page.count, let last = page.last { o["nextPageToken"] = .string(last.0) }
        return .object(o)
    }

    /// `PATCH v2/projects/{p}/tenants/{t}`: with `updateMask` (comma-separated field paths,
    /// nested with dots), each named field takes the body's value or, when the body lacks it, its
    /// default; without a mask every top-level field in the body is replaced. The result is
    /// validated as a whole before it is stored.
    public func updateTenant(projectId: String, tenantId: String, patch: UTF8Dictionary<JSON>, updateMask: String?) throws -> JSON {
        guard case .object(var current) = try getTenantConfig(projectId, tenantId).settingsJSON else { throw Self.tenantNotFound(tenantId) }
        if let mask = updateMask, !mask.isEmpty {
            for path in mask.split(separator: ",").map({ $0.trimmingSpaces() }) where !path.isEmpty {
                let keys = path.split(separator: ".").map { Self.camelCase(String($0)) }
                guard let first = keys.first, TenantConfig.inputFields.contains(first) else {
                    throw EmulatorError.authBadRequest("INVALID_ARGUMENT : updateMask names an unknown field \"\(path)\"")
                }
                Self.setPath(&current, keys, Self.value(at: keys, in: .object(patch)))
            }
        } else {
            for (k, v) in patch where !TenantConfig.outputFields.contains(k) { current[k] = v }
        }
        let updated = try TenantConfig(json: current)
        try writeProject(projectId) { st in
            guard st.tenants[tenantId] != nil else { throw Self.tenantNotFound(tenantId) }
            st.setTenant(tenantId, updated)
        }
        return updated.json(projectId: projectId, tenantId: tenantId)
    }

    /// `DELETE v2/projects/{p}/tenants/{t}`: the tenant, its users, codes and tokens go.
    public func deleteTenant(projectId: String, tenantId: String) throws {
        try writeProject(projectId) { st in
            guard st.tenants[tenantId] != nil else { throw Self.tenantNotFound(tenantId) }
            st.removeTenant(tenantId)
        }
    }

    /// The project's tenants, sorted by id, with their settings (exports).
    public func tenants(projectId: String) -> [(id: String, config: TenantConfig)] {
        readProject(projectId) { st in st.tenants.keys.sorted().compactMap { id in st.tenants[id].map { (id, $0.config) } } }
    }

    /// Creates `tenantId` with `config` unless it exists (imports of the Firebase export layout).
    public func ensureTenant(projectId: String, tenantId: String, config: TenantConfig) throws {
        try writeProject(projectId) { st in if st.tenants[tenantId] == nil { st.setTenant(tenantId, config) } }
    }

    private func getTenantConfig(_ projectId: String, _ tenantId: String) throws -> TenantConfig {
        guard let t = readProject(projectId, { $0.tenants[tenantId]?.config }) else { throw Self.tenantNotFound(tenantId) }
        return t
    }

    /// `allow_password_signup` → `allowPasswordSignup` (masks may use either spelling).
    static func camelCase(_ s: String) -> String {
        guard s.contains("_") else { return s }
        var out = ""
        var upper = false
        for c in s {
            if c == "_" {
                upper = true
                continue
            }
            out += upper ? c.uppercased() : String(c)
            upper = false
        }
        return out
    }

    /// The value at a dotted path, or nil.
    static func value(at keys: [String], in json: JSON) -> JSON? {
        var cur: JSON? = json
        for k in keys { cur = cur?.objectValue?[k] }
        return cur
    }

    /// Sets (or with nil removes) the value at a dotted path, creating objects on the way.
    static func setPath(_ o: inout UTF8Dictionary<JSON>, _ keys: [String], _ value: JSON?) {
        guard let first = keys.first else { return }
        if keys.count == 1 {
            o[first] = value
            return
        }
        var child = o[first]?.objectValue ?? [:]
        setPath(&child, Array(keys.dropFirst()), value)
        o[first] = .object(child)
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
