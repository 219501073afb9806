#if canImport(Glibc)
import Glibc
#endif
import EmulatorCore

/// An append-only file of checksummed records: `[u32 length][u32 crc32][payload]`, little endian.
/// Reading stops at the first torn or corrupt record (a crash mid-append); the caller truncates
/// there, so a torn tail is dropped, never fatal.
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

    /// Decodes every intact record; returns them and the byte length of the intact prefix.
    static func read(_ data: [UInt8]) -> (records: [[UInt8]], validLength: Int) {
        var records: [[UInt8]] = []
        var i = 0
        while i + 8 <= data.count {
            let len = Int(UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16 | UInt32(data[i + 3]) << 24)
            let crc = UInt32(data[i + 4]) | UInt32(data[i + 5]) << 8 | UInt32(data[i + 6]) << 16 | UInt32(data[i + 7]) << 24
            guard len <= data.count - i - 8 else { break }
            let payload = Array(data[(i + 8)..<(i + 8 + len)])
            guard CRC32.checksum(payload) == crc else { break }
            records.append(payload)
            i += 8 + len
        }
        return (records, i)
    }

    /// Writes all of `bytes` to `fd`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, bytes.count - off) }
            if n > 0 { off += n } else if n < 0 && errno == EINTR { continue } else {
                throw EmulatorError.internal("journal write failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes `bytes` to `path` crash-safely: a temporary file, fsync, rename, fsync of the folder.
    static func atomicWrite(_ bytes: [UInt8], to path: String) throws {
        let tmp = path + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EmulatorError.internal("cannot write \(tmp): \(String(cString: strerror(errno)))") }
        do {
            try writeAll(fd, bytes)
            fsync(fd)
            close(fd)
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        guard rename(tmp, path) == 0 else { throw EmulatorError.internal("cannot rename \(tmp): \(String(cString: strerror(errno)))") }
        syncDirectory(FilePathText.deletingLastComponent(path))
    }

    /// fsyncs a directory so renames in it survive a power loss.
    static func syncDirectory(_ dir: String) {
        let fd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
