import EmulatorCore
import EmulatorStorage

/// Follows one project's Storage changes. Called inside Storage's lock, in commit order: it must
/// only enqueue (never block, never call Storage).
protocol StorageFeedSink: AnyObject, Sendable {
    /// One committed change.
    func storageChanged(_ change: StorageChange)
}

/// Storage's one change observer, fanned out: every committed change goes to `next` (the
/// functions host's storage triggers), bumps the project's revision (what the UI polls when it
/// cannot open the event stream) and goes to the sinks following the change's project (the UI's
/// event streams, `GET /emulator/v1/projects/{p}/events`). The sinks are behind a `Mutex`.
final class StorageFeed: StorageObserver {
    private struct Entry {
        var project: String
        var sink: any StorageFeedSink
    }

    private let next: (any StorageObserver)?
    private let revisions: ProjectRevisions?
    private let sinks = Mutex<[ObjectIdentifier: Entry]>([:])

    /// A feed that hands every change to `next` first and bumps `revisions`.
    init(next: (any StorageObserver)?, revisions: ProjectRevisions? = nil) {
        self.next = next
        self.revisions = revisions
    }

    /// Starts delivering `project`'s changes to `sink` (until `unsubscribe`).
    func subscribe(project: String, _ sink: any StorageFeedSink) {
        sinks.withLock { $0[ObjectIdentifier(sink)] = Entry(project: project, sink: sink) }
    }

    /// Stops delivering to `sink`.
    func unsubscribe(_ sink: any StorageFeedSink) {
        _ = sinks.withLock { $0.removeValue(forKey: ObjectIdentifier(sink)) }
    }

    /// Hands the change to `next`, then to the project's sinks.
    func storageChanged(_ change: StorageChange) {
        next?.storageChanged(change)
        revisions?.bump(change.project)
        let targets = sinks.withLock { all in all.values.filter { $0.project == change.project }.map(\.sink) }
        for t in targets { t.storageChanged(change) }
    }
}
