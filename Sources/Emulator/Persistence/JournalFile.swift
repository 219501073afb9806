import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// An append-only file of checksummed records: `[u32 length][u32 crc32][payload]`, little endian;
/// every payload is a JSON object.
///
/// Damage is classified by what follows it (`scan`): a *torn tail* (a crash mid-append, or the
/// zero-filled end a power loss can leave) has no intact record after it and is dropped; damage
/// with intact records after it is corruption in the middle, which must never be skipped silently
/// (replay would drop every later write), so the caller refuses to start and points at `repair`.
enum JournalFile {
    /// Encodes one record.
    static func record(_ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 8)
        withUnsafeBytes(of: UInt32(payload.count).littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: CRC32.checksum(payload).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: payload)
        return out
    }

    /// Where the intact prefix of a journal ends and why.
    struct Damage: Equatable {
        /// Byte offset of the first record that cannot be read.
        var offset: Int
        /// What is wrong there, for messages.
        var reason: String
        /// Intact records found after the damage (0: a torn tail).
        var intactAfter: Int
        /// True when nothing intact follows: a crash mid-append, safe to drop at the end of the newest journal.
        var isTornTail: Bool { intactAfter == 0 }
    }

    /// What reading a journal found.
    struct Scan {
        /// Intact records of the prefix, in order.
        var records: [[UInt8]]
        /// Byte length of the intact prefix.
        var validLength: Int
        /// Set when bytes follow the intact prefix.
        var damage: Damage?
    }

    /// Reads every intact record up to the first damage, and classifies the damage.
    static func scan(_ data: [UInt8]) -> Scan {
        var records: [[UInt8]] = []
        var i = 0
        while let payload = intactRecord(data, at: i) {
            records.append(payload)
            i += 8 + payload.count
        }
        guard i < data.count else { return Scan(records: records, validLength: i, damage: nil) }
        var after = 0
        if let j = nextIntactRecord(data, after: i) {
            var k = j
            while let p = intactRecord(data, at: k) {
                after += 1
                k += 8 + p.count
            }
        }
        return Scan(records: records, validLength: i, damage: Damage(offset: i, reason: reason(data, at: i), intactAfter: after))
    }

    /// Decodes every intact record; returns them and the byte length of the intact prefix.
    static func read(_ data: [UInt8]) -> (records: [[UInt8]], validLength: Int) {
        let s = scan(data)
        return (s.records, s.validLength)
    }

    /// The little-endian `u32` at `i` (the caller checked `i + 4 <= d.count`).
    static func u32(_ d: [UInt8], _ i: Int) -> Int {
        Int(UInt32(d[i]) | UInt32(d[i + 1]) << 8 | UInt32(d[i + 2]) << 16 | UInt32(d[i + 3]) << 24)
    }

    /// The payload of the intact record at `i`: a length that fits, a JSON object's `{`, a matching checksum.
    static func intactRecord(_ d: [UInt8], at i: Int) -> [UInt8]? {
        guard i >= 0, i + 8 < d.count else { return nil }
        let len = u32(d, i)
        guard len >= 2, len <= d.count - i - 8, d[i + 8] == UInt8(ascii: "{") else { return nil }
        let payload = Array(d[(i + 8)..<(i + 8 + len)])
        guard CRC32.checksum(payload) == UInt32(u32(d, i + 4)) else { return nil }
        return payload
    }

    /// The first offset after `start` where an intact record begins, if any (a resync after damage).
    static func nextIntactRecord(_ d: [UInt8], after start: Int) -> Int? {
        var j = start + 1
        while j + 9 <= d.count {
            // Cheap filter first: the payload starts with `{`; only then is the checksum computed.
            if d[j + 8] == UInt8(ascii: "{"), intactRecord(d, at: j) != nil { return j }
            j += 1
        }
        return nil
    }

    /// Why the record at `i` cannot be read.
    static func reason(_ d: [UInt8], at i: Int) -> String {
        let rest = d.count - i
        if d[i...].allSatisfy({ $0 == 0 }) { return "\(rest) zero bytes" }
        if rest < 8 { return "an incomplete record header (\(rest) bytes)" }
        let len = u32(d, i)
        if len > rest - 8 { return "a record header promising \(len) bytes where \(rest - 8) remain" }
        return "a record that fails its checksum"
    }

    /// A failed system call: the call and `errno`'s text (`No space left on device`).
    struct SystemError: Error, CustomStringConvertible {
        /// `errno`.
        var code: Int32
        /// The operation, for messages.
        var operation: String
        /// `operation: reason`.
        var description: String { "\(operation): \(String(cString: strerror(code)))" }
        /// The system's text for `code`.
        var reason: String { String(cString: strerror(code)) }
    }

    /// Writes all of `bytes` to `fd`; throws `SystemError` (a short write followed by an error
    /// leaves part of `bytes` in the file: the caller cuts it off).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { p -> Int in
                guard let base = p.baseAddress else { return 0 }
                return write(fd, base + off, bytes.count - off)
            }
            if n > 0 {
                off += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw SystemError(code: n == 0 ? EIO : errno, operation: "write")
            }
        }
    }

    /// Writes `bytes` to `path` crash-safely: a temporary file, fsync, rename, fsync of the folder.
    /// On any failure the temporary file is removed and `path` is untouched.
    static func atomicWrite(_ bytes: [UInt8], to path: String) throws {
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EmulatorError.internal("cannot write \(tmp): \(String(cString: strerror(errno)))") }
        do {
            try writeAll(fd, bytes)
            guard fsync(fd) == 0 else { throw SystemError(code: errno, operation: "fsync") }
            close(fd)
        } catch {
            close(fd)
            unlink(tmp)
            throw EmulatorError.internal("cannot write \(path): \(error)")
        }
        guard rename(tmp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw EmulatorError.internal("cannot rename \(tmp): \(reason)")
        }
        syncDirectory(FilePathText.deletingLastComponent(path))
    }

    /// fsyncs a directory so renames in it survive a power loss.
    static func syncDirectory(_ dir: String) {
        let fd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
