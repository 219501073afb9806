import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// Blobs as files in one directory (`<data-dir>/storage/blobs`, or a private temporary directory
/// without `--data-dir`), written with `write(2)` and read with `pread(2)`, so an object of any
/// size costs a file, not memory. File names are `<start time>-<counter>`, created with `O_EXCL`
/// (a name left by an earlier run is skipped, never reused). `durable`: a finished file and its
/// directory entry are `fsync`ed before `close` returns, so the journal record that refers to it
/// is written after its bytes are on disk. The counter and the keep flag are behind `Mutex`es;
/// files are only touched by their one writer, then read.
public final class DiskBlobStore: BlobStore {
    /// The directory holding the files.
    public let directory: String
    /// Finished files are forced to disk (`--data-dir` with an fsync policy other than `never`).
    public let durable: Bool
    private let prefix: String
    private let counter = Mutex<UInt64>(0)
    private let keeping = Mutex(false)
    private let removeDirectoryWhenDone: Bool

    /// Uses `directory` (created if missing). `temporary`: the directory is the emulator's own and
    /// `removeEverything()` deletes it. `durable`: see the type.
    public init(directory: String, temporary: Bool = false, durable: Bool = false) throws(StorageIOError) {
        self.directory = directory
        self.removeDirectoryWhenDone = temporary
        self.durable = durable
        prefix = String(WallClock().now().microseconds, radix: 36)
        try Self.makeDirectories(directory)
    }

    /// A fresh private directory under `$TMPDIR` (or `/tmp`), removed by `removeEverything()`.
    public static func temporary() throws(StorageIOError) -> DiskBlobStore {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/emulator-storage-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { p -> Bool in
            guard let base = p.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else { throw StorageIOError("cannot create a temporary directory under \(base): \(Self.errnoText())") }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return try DiskBlobStore(directory: path, temporary: true)
    }

    /// Starts a new file (a name that exists already, left by an earlier run, is skipped).
    public func create() throws(StorageIOError) -> any BlobSink {
        for _ in 0..<1000 {
            let n = counter.withLock { c -> UInt64 in
                c += 1
                return c
            }
            let id = "\(prefix)-\(n)"
            let path = FilePathText.appending(directory, id)
            let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 && errno == EEXIST { continue }
            guard fd >= 0 else { throw StorageIOError("cannot create \(path): \(Self.errnoText())") }
            _ = Glibc.close(fd)  // each write opens it again: see DiskBlobSink
            return DiskBlobSink(id: id, path: path, syncDirectory: durable ? directory : nil)
        }
        throw StorageIOError("cannot create a new file in \(directory): every name tried exists")
    }

    /// Opens a finished file.
    public func open(_ id: String) throws(StorageIOError) -> any BlobSource {
        let path = FilePathText.appending(directory, id)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageIOError("cannot open \(path): \(Self.errnoText())") }
        return DiskBlobSource(fd: fd, path: path)
    }

    /// Deletes a file (nothing once `keepFiles()` was called).
    public func remove(_ id: String) {
        guard !keeping.withLock({ $0 }) else { return }
        _ = unlink(FilePathText.appending(directory, id))
    }

    /// From now on `remove` deletes nothing: the service holding the blobs is going away and the
    /// files belong to the data directory's journal (a clean stop must not delete them).
    public func keepFiles() { keeping.withLock { $0 = true } }

    /// The files in the directory.
    public var blobIds: [String] { Self.fileNames(in: directory) }

    /// The size of a file, nil when it does not exist.
    public func storedSize(_ id: String) -> Int64? {
        var st = stat()
        guard stat(FilePathText.appending(directory, id), &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(st.st_size)
    }

    deinit { if removeDirectoryWhenDone { removeEverything() } }

    /// Deletes every file in the directory, and the directory itself when it is a temporary one.
    public func removeEverything() {
        for name in Self.fileNames(in: directory) { _ = unlink(FilePathText.appending(directory, name)) }
        if removeDirectoryWhenDone { _ = rmdir(directory) }
    }

    /// Names of the regular files in `dir`.
    static func fileNames(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var out: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }

    static func makeDirectories(_ path: String) throws(StorageIOError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw StorageIOError("cannot create directory \(current): \(errnoText())")
            }
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// A file being written (one writer; `@unchecked Sendable` so an upload can move between tasks).
///
/// It holds no file descriptor between writes: each write opens the file to append and closes it.
/// A resumable upload lives as long as its client likes, and one descriptor per session let 1,009
/// sessions that never sent a byte use up the process's descriptors, failing every upload and
/// connection of every client.
final class DiskBlobSink: BlobSink, @unchecked Sendable {
    let id: String
    private let path: String
    private var closed = false
    /// Set for a durable store: the file and this directory are fsynced at `close`.
    private let syncDirectory: String?

    init(id: String, path: String, syncDirectory: String? = nil) {
        self.id = id
        self.path = path
        self.syncDirectory = syncDirectory
    }

    /// Runs `body` with the file open for appending.
    private func withFile<R>(_ body: (Int32) throws(StorageIOError) -> R) throws(StorageIOError) -> R {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw StorageIOError("cannot open \(path): \(DiskBlobStore.errnoText())") }
        let r: R
        do throws(StorageIOError) { r = try body(fd) } catch {
            _ = Glibc.close(fd)
            throw error
        }
        guard Glibc.close(fd) == 0 else { throw StorageIOError("cannot close \(path): \(DiskBlobStore.errnoText())") }
        return r
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StorageIOError) {
        guard !closed else { throw StorageIOError("\(path) is already closed") }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        try withFile { fd throws(StorageIOError) in
            var p = base
            var left = bytes.count
            while left > 0 {
                let n = Glibc.write(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StorageIOError("cannot write \(path): \(DiskBlobStore.errnoText())")
                }
                p += n
                left -= n
            }
        }
    }

    func close() throws(StorageIOError) {
        guard !closed else { return }
        closed = true
        guard let dir = syncDirectory else { return }
        try withFile { fd throws(StorageIOError) in
            if fsync(fd) != 0 { throw StorageIOError("cannot flush \(path) to disk: \(DiskBlobStore.errnoText())") }
        }
        // The file's directory entry too: after a power loss the journal record must not refer to
        // a file whose name was never written.
        let dfd = Glibc.open(dir, O_RDONLY | O_CLOEXEC)
        guard dfd >= 0 else { throw StorageIOError("cannot open \(dir) to flush it: \(DiskBlobStore.errnoText())") }
        defer { _ = Glibc.close(dfd) }
        if fsync(dfd) != 0 { throw StorageIOError("cannot flush \(dir) to disk: \(DiskBlobStore.errnoText())") }
    }
}

/// A file opened for positional reads (`pread` is safe from any thread).
final class DiskBlobSource: BlobSource, @unchecked Sendable {
    private let fd: Int32
    private let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    func read(at offset: Int64, count: Int) throws(StorageIOError) -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = out.withUnsafeMutableBytes { p in pread(fd, p.baseAddress! + got, count - got, off_t(offset + Int64(got))) }  // trap-ok: count > 0
            if n < 0 {
                if errno == EINTR { continue }
                throw StorageIOError("cannot read \(path): \(DiskBlobStore.errnoText())")
            }
            if n == 0 { break }
            got += n
        }
        if got < count { out.removeSubrange(got...) }
        return out
    }

    deinit { _ = Glibc.close(fd) }
}
