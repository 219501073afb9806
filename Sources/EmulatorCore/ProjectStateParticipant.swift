/// A service whose per-project data the control plane can reset, capture and restore.
///
/// Services keep per-project state as value types, so `capture` is a copy-on-write copy (O(1))
/// and `restore` is an assignment. Configuration (rules, auth config) is not data: reset keeps it.
public protocol ProjectStateParticipant: Sendable {
    /// A short name for logs and errors (`auth`, `firestore`, `functions`).
    var participantName: String { get }
    /// Drops the project's data (users, documents, codes, open transactions, queued events, logs).
    func resetProject(_ projectId: String)
    /// Drops every project's data.
    func resetAll()
    /// The project's whole data, as an opaque value.
    func captureProject(_ projectId: String) -> any Sendable
    /// Puts captured data back; throws if `snapshot` did not come from this participant.
    func restoreProject(_ projectId: String, from snapshot: any Sendable) throws
}
