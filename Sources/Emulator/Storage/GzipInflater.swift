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

    /// Output comes in chunks of at most this many bytes, so a download costs one chunk of memory
    /// however far its data expands (a 1 MB gzip bomb of zeros once took 3 GiB in one piece).
    static let chunkSize = 64 * 1024

    private var input: [UInt8] = []
    private var consumed = 0
    /// The last chunk filled the whole buffer: zlib may hold more output for the same input.
    private var mayHaveMore = false

    /// Hands the decoder the next piece of the compressed stream; read its output with `next()`.
    func feed(_ piece: [UInt8]) {
        input = piece
        consumed = 0
    }

    /// The next at most `chunkSize` decompressed bytes of what was fed; nil once that is used up
    /// (feed the next piece) or the stream has ended. Throws on corrupt data.
    func next() throws -> [UInt8]? {
        guard !failed else { throw GzipError() }
        guard !ended, consumed < input.count || mayHaveMore else { return nil }
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        let (rc, produced, left) = input.withUnsafeBufferPointer { inp in
            buffer.withUnsafeMutableBufferPointer { b -> (Int32, Int, Int) in
                stream.pointee.next_in = inp.baseAddress.map { UnsafeMutablePointer(mutating: $0 + consumed) }
                stream.pointee.avail_in = UInt32(inp.count - consumed)
                stream.pointee.next_out = b.baseAddress
                stream.pointee.avail_out = UInt32(b.count)
                let rc = CZlib.inflate(stream, Z_NO_FLUSH)
                return (rc, b.count - Int(stream.pointee.avail_out), Int(stream.pointee.avail_in))
            }
        }
        consumed = input.count - left
        mayHaveMore = produced == Self.chunkSize
        switch rc {
        case Z_STREAM_END: ended = true
        case Z_OK, Z_BUF_ERROR: if produced == 0 { return nil }  // needs more input
        default:
            failed = true
            throw GzipError()
        }
        return Array(buffer[0..<produced])
    }
}

/// Stored gzip data that does not decompress.
struct GzipError: Error {}
