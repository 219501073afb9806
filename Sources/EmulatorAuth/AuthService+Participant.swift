import EmulatorCore

extension AuthService: ProjectStateParticipant {
    /// `auth`.
    public var participantName: String { "auth" }

    /// Drops users, codes and tokens; the project's Auth config is settings, so it stays.
    public func resetProject(_ projectId: String) {
        write(projectId) { st in
            var fresh = AuthProjectState()
            fresh.config = st.config
            st = fresh
        }
    }

    /// Drops every project's data (configs stay).
    public func resetAll() {
        for p in projectIdsWithState() { resetProject(p) }
    }

    /// The project's `AuthProjectState` (a copy-on-write value).
    public func captureProject(_ projectId: String) -> any Sendable { snapshot(projectId: projectId) }

    /// Restores a captured `AuthProjectState`.
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {
        guard let st = snapshot as? AuthProjectState else {
            throw EmulatorError.invalidArgument("The snapshot does not hold Auth data.")
        }
        restore(projectId: projectId, st)
    }
}
