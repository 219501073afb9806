import CZlib

/// Decompresses a gzip (or zlib) stream piece by piece, for serving `Content-Encoding: gzip`
/// objects to clients that do not accept gzip (Cloud Storage's decompressive transcoding). The
/// `z_stream` lives on the heap (zlib keeps a pointer back to it). One owner; not thread-safe.
final class GzipInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private var ended = false
    private var failed = false

    /// Starts a decoder that accepts gzip and zlib headers.
    init?() {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // 15 window bits + 32: detect gzip or zlib automatically.
        guard inflateInit2_(stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The decompressed bytes of `input` (a next piece of the compressed stream); empty once the
    /// stream has ended. Throws on corrupt data.
    func inflate(_ input: [UInt8]) throws -> [UInt8] {
        guard !ended, !input.isEmpty else { return [] }
        guard !failed else { throw GzipError() }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        try input.withUnsafeBufferPointer { inp in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
            stream.pointee.avail_in = UInt32(inp.count)
            repeat {
                let (rc, produced) = buffer.withUnsafeMutableBufferPointer { b -> (Int32, Int) in
                    stream.pointee.next_out = b.baseAddress
                    stream.pointee.avail_out = UInt32(b.count)
                    let rc = CZlib.inflate(stream, Z_NO_FLUSH)
                    return (rc, b.count - Int(stream.pointee.avail_out))
                }
                out.append(contentsOf: buffer[0..<produced])
                if rc == Z_STREAM_END {
                    ended = true
                    break
                }
                guard rc == Z_OK || rc == Z_BUF_ERROR else {
                    failed = true
                    throw GzipError()
                }
                if rc == Z_BUF_ERROR && produced == 0 { break }
            } while stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0
        }
        return out
    }
}

/// Stored gzip data that does not decompress.
struct GzipError: Error {}
