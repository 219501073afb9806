/// A service whose per-project data the control plane can reset, capture and restore.
///
/// Services keep per-project state as value types, so `capture` is a copy-on-write copy (O(1))
/// and `restore` is an assignment. Configuration (rules, auth config) is not data: reset keeps it.
public protocol ProjectStateParticipant: Sendable {
    /// A short name for logs and errors (`auth`, `firestore`, `functions`).
    var participantName: String { get }
    /// Drops the project's data (users, documents, codes, open transactions, queued events, logs).
    /// A durable service journals the change first and throws (changing nothing) when it cannot.
    func resetProject(_ projectId: String) throws
    /// Drops every project's data (durable services: see `resetProject`).
    func resetAll() throws
    /// The project's whole data, as an opaque value.
    func captureProject(_ projectId: String) -> any Sendable
    /// Puts captured data back; throws if `snapshot` did not come from this participant, or (durable
    /// services) when the change cannot be journaled, changing nothing.
    func restoreProject(_ projectId: String, from snapshot: any Sendable) throws
}
