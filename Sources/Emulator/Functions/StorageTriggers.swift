import EmulatorCore
import EmulatorFunctions
import EmulatorStorage

/// Storage's change observer: turns committed object changes into the functions host's storage
/// events (`finalized`, `metadataUpdated`, `deleted`; CloudEvent data is the object's Cloud Storage
/// JSON), queued on the host's ordered, at-least-once queue with the other background events.
/// Token changes and bucket changes fire nothing (production sends no event for them, and
/// reading never mints a token here, so no spurious `metadataUpdated`, ft#4202). Lives in
/// Emulator so neither service imports the other. Immutable.
struct StorageTriggers: StorageObserver {
    let functions: FunctionsHost
    /// Links in event data point where production's do.
    static let linkBase = "https://www.googleapis.com"

    func storageChanged(_ change: StorageChange) {
        let event: String, object: StorageObject?
        switch change.kind {
        case .finalized: (event, object) = ("finalized", change.object)
        case .metadataUpdated: (event, object) = ("metadataUpdated", change.object)
        case .deleted: (event, object) = ("deleted", change.previous)
        case .tokensChanged, .bucketCreated, .bucketDeleted: return
        }
        guard let object else { return }
        var data = StorageJSON.gcs(object, base: Self.linkBase)
        if change.kind == .deleted, case .object(var o) = data {
            o["timeDeleted"] = .string(change.time.rfc3339(fractionDigits: 3))
            data = .object(o)
        }
        functions.storageEvent(project: change.project, bucket: change.bucket, event: event, object: data, time: change.time)
    }
}
