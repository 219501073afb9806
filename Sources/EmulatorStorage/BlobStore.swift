import EmulatorCore

/// Where object bytes live: immutable blobs, written once through a `BlobSink` and then read by
/// offset. Implemented on disk (`DiskBlobStore`, the product) and in memory (`MemoryBlobStore`,
/// tests). Part of the seam persistence builds on: a blob's id is stable for its life.
public protocol BlobStore: Sendable {
    /// Starts a new, empty blob.
    func create() throws(StorageIOError) -> any BlobSink
    /// Opens a finished blob for reading.
    func open(_ id: String) throws(StorageIOError) -> any BlobSource
    /// Deletes a blob's bytes; called once, when the last `Blob` referring to it goes away.
    func remove(_ id: String)
    /// Ids of every blob held (finished or being written): persistence sweeps the ones no object
    /// refers to after loading.
    var blobIds: [String] { get }
    /// The size of a held blob, nil when there is none with that id.
    func storedSize(_ id: String) -> Int64?
    /// Stops `remove` from deleting anything (the service is going away; durable blobs stay).
    func keepFiles()
}

/// A blob being written. One writer at a time; `close` makes it readable under `id`.
public protocol BlobSink: AnyObject, Sendable {
    /// The blob's id in its store.
    var id: String { get }
    /// Appends bytes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageIOError)
    /// Finishes the blob.
    func close() throws(StorageIOError)
}

/// A finished blob opened for reading (positional reads, safe from any thread).
public protocol BlobSource: AnyObject, Sendable {
    /// Up to `count` bytes at `offset` (fewer only at the end of the blob).
    func read(at offset: Int64, count: Int) throws(StorageIOError) -> [UInt8]
}

/// A storage-level I/O failure (disk full, file vanished); services turn it into INTERNAL.
public struct StorageIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, naming the file when there is one.
    public var description: String

    /// Creates the error.
    public init(_ description: String) { self.description = description }
}

/// One stored object's bytes: an immutable blob, shared by every object version and snapshot that
/// refers to it (copies and rewrites share; snapshots keep it alive). Its bytes are deleted when
/// the last reference goes (`deinit`), so state kept as values manages disk space by itself.
public final class Blob: Sendable {
    /// The id in `store`.
    public let id: String
    /// Length in bytes.
    public let size: Int64
    /// MD5 of the bytes.
    public let md5: [UInt8]
    /// CRC-32C of the bytes.
    public let crc32c: UInt32
    /// The store that holds the bytes.
    public let store: any BlobStore

    /// Wraps a finished blob (persistence uses this to adopt blobs it finds on disk).
    public init(id: String, size: Int64, md5: [UInt8], crc32c: UInt32, store: any BlobStore) {
        self.id = id
        self.size = size
        self.md5 = md5
        self.crc32c = crc32c
        self.store = store
    }

    deinit { store.remove(id) }

    /// Opens the bytes for reading.
    public func open() throws(StorageIOError) -> any BlobSource { try store.open(id) }
}

/// Writes one blob, hashing as it goes (MD5 and CRC-32C, what Cloud Storage reports), and turns
/// into a `Blob` when finished. A writer dropped unfinished deletes its bytes. Owned by one upload
/// at a time (an upload session passes it between requests); not safe for concurrent use.
public final class BlobWriter: @unchecked Sendable {
    private let sink: any BlobSink
    private let store: any BlobStore
    private let md5 = MD5Stream()
    private var crc = CRC32C()
    private var finished = false
    /// Bytes written so far.
    public private(set) var size: Int64 = 0

    /// Starts a blob in `store`.
    public init(store: any BlobStore) throws(StorageIOError) {
        self.store = store
        sink = try store.create()
    }

    /// Appends bytes.
    public func append(_ bytes: [UInt8]) throws(StorageIOError) {
        guard !bytes.isEmpty else { return }
        var failure: StorageIOError?
        bytes.withUnsafeBytes { p in
            do throws(StorageIOError) {
                try sink.write(p)
                md5.update(p)
                crc.update(p)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        size += Int64(bytes.count)
    }

    /// Closes the blob and returns it with its hashes.
    public func finish() throws(StorageIOError) -> Blob {
        try sink.close()
        finished = true
        return Blob(id: sink.id, size: size, md5: md5.finish(), crc32c: crc.value, store: store)
    }

    deinit {
        if !finished {
            try? sink.close()
            store.remove(sink.id)
        }
    }
}
