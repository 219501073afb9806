/// Where an Auth operation acts: a project's own user pool (`tenantId == nil`) or the pool of
/// one of its tenants. Users, codes and refresh tokens never cross pools.
public struct AuthScope: Sendable, Hashable, CustomStringConvertible {
    /// The project.
    public var projectId: String
    /// The tenant, or nil for the project's own users.
    public var tenantId: String?

    /// A scope.
    public init(_ projectId: String, tenant: String? = nil) {
        self.projectId = projectId
        self.tenantId = tenant
    }

    /// `project` or `project/tenant` (log lines).
    public var description: String { tenantId.map { "\(projectId)/\($0)" } ?? projectId }
}
