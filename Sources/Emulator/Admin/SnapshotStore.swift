import EmulatorCore

/// Named in-memory snapshots of whole projects across every participating service, at most
/// `maxPerProject` per project. State is behind a `Mutex`; a snapshot holds each participant's
/// copy-on-write value, so taking and restoring one costs no copy of the data, but it keeps every
/// version it captured alive as the project changes: hence the bound.
public final class SnapshotStore: Sendable {
    struct Snapshot: Sendable {
        var name: String
        var createdAt: Timestamp
        var parts: [String: any Sendable]
        var seed: UInt64?
    }

    private let state: Mutex<[String: [String: Snapshot]]> = Mutex([:])

    /// The most snapshots one project keeps.
    public let maxPerProject: Int

    /// Creates an empty store.
    public init(maxPerProject: Int = 100) { self.maxPerProject = max(1, maxPerProject) }

    /// Captures `projectId` from every participant under `name` (replacing an older one).
    /// RESOURCE_EXHAUSTED for a new name when the project already keeps `maxPerProject`.
    public func save(name: String, projectId: String, participants: [any ProjectStateParticipant], at time: Timestamp, seed: UInt64?) throws {
        try checkRoom(name: name, projectId: projectId)
        var parts: [String: any Sendable] = [:]
        for p in participants { parts[p.participantName] = p.captureProject(projectId) }
        let snap = Snapshot(name: name, createdAt: time, parts: parts, seed: seed)
        try state.withLock { s in
            try Self.checkRoom(s[projectId], name: name, projectId: projectId, limit: maxPerProject)  // again: saves may race
            s[projectId, default: [:]][name] = snap
        }
    }

    /// Refuses a new name when the project is full, before anything is captured.
    private func checkRoom(name: String, projectId: String) throws {
        try state.withLock { try Self.checkRoom($0[projectId], name: name, projectId: projectId, limit: maxPerProject) }
    }

    private static func checkRoom(_ kept: [String: Snapshot]?, name: String, projectId: String, limit: Int) throws {
        guard let kept, kept[name] == nil, kept.count >= limit else { return }
        throw EmulatorError(
            .resourceExhausted,
            "Project '\(projectId)' already keeps \(limit) snapshots, the limit: each keeps the versions it captured alive. "
                + "Delete one (DELETE /emulator/v1/projects/\(projectId)/snapshots/{name}) or save under an existing name.")
    }

    /// Restores snapshot `name` into every participant; NOT_FOUND when it does not exist.
    public func restore(name: String, projectId: String, participants: [any ProjectStateParticipant]) throws {
        guard let snap = state.withLock({ $0[projectId]?[name] }) else {
            throw EmulatorError.notFound("No snapshot '\(name)' in project '\(projectId)'.")
        }
        for p in participants {
            guard let part = snap.parts[p.participantName] else {
                try p.resetProject(projectId)
                continue
            }
            try p.restoreProject(projectId, from: part)
        }
    }

    /// Names and creation times of the project's snapshots, sorted by name.
    public func list(projectId: String) -> [(name: String, createdAt: Timestamp)] {
        state.withLock { ($0[projectId] ?? [:]).values.map { ($0.name, $0.createdAt) }.sorted { $0.name < $1.name } }
    }

    /// Deletes one snapshot; false when it did not exist.
    public func delete(name: String, projectId: String) -> Bool {
        state.withLock { $0[projectId]?.removeValue(forKey: name) != nil }
    }

    /// Forgets every snapshot of one project.
    public func clear(projectId: String) { state.withLock { _ = $0.removeValue(forKey: projectId) } }

    /// Forgets every snapshot.
    public func clearAll() { state.withLock { $0 = [:] } }
}
