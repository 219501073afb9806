/// A service whose data can be exported, imported and journaled as JSON (persistence,
/// `:export`/`:import`, `--data-dir`).
public protocol PersistentParticipant: ProjectStateParticipant {
    /// The project's whole data as JSON.
    func exportProject(_ projectId: String) -> JSON
    /// Replaces the project's data with an export; validates before changing anything.
    func importProject(_ projectId: String, _ json: JSON) throws
    /// Projects that currently hold data.
    var projectsWithData: [String] { get }
    /// Re-applies one journal entry produced by this participant.
    func replay(project: String, entry: JSON) throws
}
