import EmulatorCore

/// One tenant: its settings and its own user pool.
public struct AuthTenant: Sendable, Equatable {
    /// The settings (the v2 `Tenant` resource).
    public var config: TenantConfig
    /// Its users, codes and tokens.
    public var pool: AuthPool
}

/// All Auth data of one project: its own user pool, its tenants (settings and pools) and its
/// config. A value type (dictionaries only), so snapshots are O(1) copies. `AuthService` guards
/// every project's state with one `Mutex`.
public struct AuthProjectState: Sendable, Equatable {
    /// The project's own users (no tenant).
    public internal(set) var pool = AuthPool()
    /// Tenants by id.
    public internal(set) var tenants: [String: AuthTenant] = [:]
    /// Project settings.
    public var config = AuthProjectConfig() {
        didSet {
            if changes.priorConfig == nil { changes.priorConfig = oldValue }
            changes.config = true
        }
    }
    /// What changed outside the pools since the journal last looked; not part of the data.
    var changes = ProjectChangeSet()

    /// Empty state.
    public init() {}

    /// The project pool's users by uid.
    public var users: [String: AuthUser] { pool.users }
    /// The project pool's user with `uid`.
    public func user(_ uid: String) -> AuthUser? { pool.user(uid) }
    /// The project pool's user holding `email`.
    public func user(email: String) -> AuthUser? { pool.user(email: email) }

    /// The pool of `tenantId` (nil: the project's), if it exists.
    public func pool(_ tenantId: String?) -> AuthPool? {
        guard let tenantId else { return pool }
        return tenants[tenantId]?.pool
    }

    /// Creates or replaces a tenant's settings (its pool is kept, or created empty).
    mutating func setTenant(_ id: String, _ config: TenantConfig) {
        noteTenantsChange()
        if tenants[id] != nil { tenants[id]?.config = config } else { tenants[id] = AuthTenant(config: config, pool: AuthPool(tenantId: id)) }
        changes.tenantConfigs.insert(id)
    }

    /// Deletes a tenant and everything in it.
    mutating func removeTenant(_ id: String) {
        noteTenantsChange()
        tenants[id] = nil
        changes.tenantConfigs.insert(id)
        changes.tenantPools.remove(id)
    }

    /// Runs `body` on the pool of `tenantId` (nil: the project's). A tenant deleted meanwhile gets
    /// a scratch pool: the change goes nowhere, as if the deletion had come right after it.
    mutating func withPool<T>(_ tenantId: String?, _ body: (inout AuthPool) throws -> T) rethrows -> T {
        guard let t = tenantId else { return try body(&pool) }
        // Take the tenant out so its pool stays uniquely referenced (writes cost what they change).
        guard var tenant = tenants.removeValue(forKey: t) else {
            var scratch = AuthPool(tenantId: t)
            return try body(&scratch)
        }
        defer {
            if !tenant.pool.changes.isEmpty { changes.tenantPools.insert(t) }
            tenants[t] = tenant
        }
        return try body(&tenant.pool)
    }

    /// Drops users, codes, tokens and tenants; the project config stays.
    mutating func clearData() {
        let c = config
        self = AuthProjectState()
        config = c
    }
}

/// Project-level changes since the last journal entry (pools track their own). Excluded from
/// equality: it is bookkeeping.
struct ProjectChangeSet: Sendable, Equatable {
    /// The project config changed.
    var config = false
    /// Tenants created, updated or deleted.
    var tenantConfigs: Set<String> = []
    /// Tenants whose pools changed.
    var tenantPools: Set<String> = []
    /// The config before the write (for `rollBack`).
    var priorConfig: AuthProjectConfig?
    /// Every tenant before the write's first tenant-level change (for `rollBack`).
    var priorTenants: AuthTenantsBox?

    /// Nothing changed.
    var isEmpty: Bool { !config && tenantConfigs.isEmpty && tenantPools.isEmpty }

    /// Always equal: change tracking must not affect state equality.
    static func == (a: ProjectChangeSet, b: ProjectChangeSet) -> Bool { true }
}

extension AuthProjectState {
    /// Undoes every change since the journal last looked (pools, tenants, config); see
    /// `AuthPool.rollBack`.
    mutating func rollBack() {
        let c = changes
        changes = ProjectChangeSet()
        pool.rollBack()
        if let prior = c.priorTenants {
            tenants = prior.tenants
        } else {
            for id in c.tenantPools { tenants[id]?.pool.rollBack() }
        }
        if let prior = c.priorConfig { config = prior }
        changes = ProjectChangeSet()
    }

    /// Before the first change to the set of tenants or their settings, keeps every tenant as it was
    /// when the write began (pool changes made earlier in the same write rolled back).
    mutating func noteTenantsChange() {
        guard changes.priorTenants == nil else { return }
        changes.priorTenants = AuthTenantsBox(
            tenants.mapValues { t in
                var t = t
                t.pool.rollBack()
                return t
            })
    }
}

/// Tenants kept aside whole (a class: the change set lives inside the state it describes).
final class AuthTenantsBox: Sendable {
    /// Tenants by id.
    let tenants: [String: AuthTenant]

    /// Keeps `tenants`.
    init(_ tenants: [String: AuthTenant]) { self.tenants = tenants }
}
