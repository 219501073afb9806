import EmulatorCore

/// Blobs in memory, for tests and embedding without a disk. State behind a `Mutex`.
public final class MemoryBlobStore: BlobStore {
    private let blobs = Mutex<[String: [UInt8]]>([:])
    private let counter = Mutex<Int>(0)

    /// An empty store.
    public init() {}

    /// Number of blobs held (finished or being written): lets tests see that deletes free bytes.
    public var count: Int { blobs.withLock { $0.count } }

    /// Starts a blob.
    public func create() throws(StorageIOError) -> any BlobSink {
        let id = counter.withLock { c -> String in
            c += 1
            return "m\(c)"
        }
        blobs.withLock { $0[id] = [] }
        return MemoryBlobSink(id: id, store: self)
    }

    /// Opens a blob.
    public func open(_ id: String) throws(StorageIOError) -> any BlobSource {
        guard let bytes = blobs.withLock({ $0[id] }) else { throw StorageIOError("no blob \(id)") }
        return MemoryBlobSource(bytes: bytes)
    }

    /// Deletes a blob.
    public func remove(_ id: String) { blobs.withLock { _ = $0.removeValue(forKey: id) } }

    /// Ids of the blobs held.
    public var blobIds: [String] { blobs.withLock { Array($0.keys) } }

    /// A blob's size.
    public func storedSize(_ id: String) -> Int64? { blobs.withLock { $0[id].map { Int64($0.count) } } }

    /// Nothing to keep: memory goes with the process.
    public func keepFiles() {}

    func append(_ id: String, _ bytes: UnsafeRawBufferPointer) {
        blobs.withLock { $0[id]?.append(contentsOf: bytes) }
    }
}

final class MemoryBlobSink: BlobSink, @unchecked Sendable {
    let id: String
    private let store: MemoryBlobStore
    init(id: String, store: MemoryBlobStore) {
        self.id = id
        self.store = store
    }
    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageIOError) { store.append(id, bytes) }
    func close() throws(StorageIOError) {}
}

final class MemoryBlobSource: BlobSource, @unchecked Sendable {
    private let bytes: [UInt8]
    init(bytes: [UInt8]) { self.bytes = bytes }
    func read(at offset: Int64, count: Int) throws(StorageIOError) -> [UInt8] {
        guard offset >= 0, offset < Int64(bytes.count), count > 0 else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + count)])
    }
}
