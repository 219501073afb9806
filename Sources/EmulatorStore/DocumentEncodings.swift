import Synchronization

/// The wire encodings of one stored document version, made on its first read and reused by every
/// later read of the same version (a version never changes: a write stores a new `Document`).
///
/// The slots are part of the version's storage object (`Document.Storage` inherits them), so a
/// version never read costs two empty pointers and no allocation; the bytes are allocated on the
/// first read of each slot.
///
/// The store does not know the encodings (it does not import the protobuf codec or the transports):
/// the API layer fills a slot with the bytes it made and reads them back. Each slot remembers the
/// project and database the document's name was built with, so bytes made for one database are
/// never served for another (a second database is simply not cached).
///
/// Memory: the cache lives in the `Document` storage it describes and is freed with it (when the
/// version is overwritten, deleted, falls out of the read-time history or the project is reset);
/// at most one encoding per slot per version. Only full documents are cached: a field mask or a
/// transform result is encoded fresh.
///
/// Thread safety: lock-free; each slot is an atomic reference, set at most once (two readers
/// racing on a first read both encode, one result is kept, both are equal), read without a lock.
/// `@unchecked Sendable` because the class is not final (`Document.Storage` extends it); its only
/// stored properties are the atomic slots.
public class DocumentEncodings: @unchecked Sendable {
    /// The encodings a slot can hold.
    public enum Slot: Sendable {
        /// The REST `Document` JSON (compact, sorted keys), as `JSON.serializedBytes()` writes it.
        case restJSON
        /// The protobuf `google.firestore.v1.Document` message bytes.
        case protobuf
    }

    /// Bytes made for one key.
    private final class Entry: Sendable {
        let project: String
        let database: String
        let bytes: [UInt8]
        init(project: String, database: String, bytes: [UInt8]) {
            self.project = project
            self.database = database
            self.bytes = bytes
        }
    }

    /// Each slot holds a retained reference once set (released in `deinit`). An `Atomic` of an
    /// unmanaged reference rather than `AtomicLazyReference`, whose `load` is not inlinable: the
    /// generic call looked up its type's metadata on every read (about 640 instructions).
    private let restJSON = Atomic<Unmanaged<Entry>?>(nil)
    private let protobuf = Atomic<Unmanaged<Entry>?>(nil)

    /// An empty cache (made as part of a `Document`'s storage).
    init() {}

    deinit {
        restJSON.load(ordering: .acquiring)?.release()
        protobuf.load(ordering: .acquiring)?.release()
    }

    private func load(_ slot: Slot) -> Entry? {
        switch slot {
        // The reference is never replaced nor released while `self` lives, so taking it
        // unretained and retaining it here is safe.
        case .restJSON: restJSON.load(ordering: .acquiring)?.takeUnretainedValue()
        case .protobuf: protobuf.load(ordering: .acquiring)?.takeUnretainedValue()
        }
    }

    /// The cached bytes of `slot` for the document named in `project`'s `database`, if made.
    public func cached(_ slot: Slot, project: String, database: String) -> [UInt8]? {
        guard let e = load(slot), e.project.utf8Equals(project), e.database.utf8Equals(database) else { return nil }
        return e.bytes
    }

    /// The bytes of `slot` for the document named in `project`'s `database`: the cached ones, or
    /// `make()`'s (kept when the slot is empty).
    public func bytes<E: Error>(
        _ slot: Slot, project: String, database: String, make: () throws(E) -> [UInt8]
    ) throws(E) -> [UInt8] {
        if let hit = cached(slot, project: project, database: database) { return hit }
        let made = try make()
        let entry = Entry(project: project, database: database, bytes: made)
        let retained = Unmanaged.passRetained(entry)
        let stored: Bool
        switch slot {
        case .restJSON: stored = restJSON.compareExchange(expected: nil, desired: retained, ordering: .acquiringAndReleasing).exchanged
        case .protobuf: stored = protobuf.compareExchange(expected: nil, desired: retained, ordering: .acquiringAndReleasing).exchanged
        }
        if !stored { retained.release() }  // another reader's equal bytes were kept
        return made
    }
}
