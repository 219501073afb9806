import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// Object downloads, as both APIs serve them: the metadata headers, one byte range (206) or the
/// whole object, gzip objects decompressed for clients that do not accept gzip (then whole, as
/// Cloud Storage does), and the bytes streamed from the blob in 1 MiB pieces with the length
/// announced, so an object of any size costs one piece of memory.
enum StorageMedia {
    /// Objects up to this size are answered in one buffer.
    static let inlineLimit: Int64 = 256 * 1024
    /// The piece size of streamed downloads.
    static let pieceSize = 1 << 20

    /// The media response for `o` (`firebase`: the Firebase API's default Content-Disposition).
    static func response(_ o: StorageObject, _ req: HTTPRequest, firebase: Bool) throws -> HTTPResponse {
        var h = HTTPHeaders()
        h.set("Content-Type", o.contentType)
        h.set("ETag", "\"\(o.etag)\"")
        h.set("Last-Modified", httpDate(o.updated))
        h.set("X-Goog-Generation", String(o.generation))
        h.set("X-Goog-Metageneration", String(o.metageneration))
        h.set("X-Goog-Storage-Class", o.storageClass)
        h.set("X-Goog-Stored-Content-Length", String(o.size))
        h.set("X-Goog-Stored-Content-Encoding", o.metadata.contentEncoding ?? "identity")
        h.set("X-Goog-Hash", "crc32c=\(o.crc32cBase64),md5=\(o.md5Base64)")
        h.set("Accept-Ranges", "bytes")
        h.set("Cache-Control", o.metadata.cacheControl ?? "private, max-age=0")
        if let d = o.metadata.contentDisposition {
            h.set("Content-Disposition", d)
        } else if firebase {
            h.set("Content-Disposition", "inline; filename*=utf-8''" + PercentEncoding.encode(StorageJSON.lastComponent(o.name)))
        }
        if let l = o.metadata.contentLanguage { h.set("Content-Language", l) }
        h.set("Access-Control-Expose-Headers", StorageHTTP.exposedHeaders)
        let gzip = o.metadata.contentEncoding?.lowercased() == "gzip"
        if gzip {
            if acceptsGzip(req) {
                h.set("Content-Encoding", "gzip")
                return stream(o, start: 0, length: o.size, status: 200, headers: h)
            }
            // Decompressive transcoding: the length is unknown, ranges are ignored.
            h.remove("X-Goog-Hash")
            h.set("Warning", "214 UploadServer gunzipped")
            return inflated(o, headers: h)
        }
        switch UploadProtocolHeaders.byteRange(req.headers["Range"], size: o.size) {
        case .whole:
            return stream(o, start: 0, length: o.size, status: 200, headers: h)
        case .partial(let start, let end):
            h.set("Content-Range", "bytes \(start)-\(end)/\(o.size)")
            return stream(o, start: start, length: end - start + 1, status: 206, headers: h)
        case .unsatisfiable:
            var r = ErrorResponder.response(
                for: EmulatorError(.outOfRange, "The requested range cannot be satisfied (the object has \(o.size) bytes).", httpStatus: 416))
            r.headers.set("Content-Range", "bytes */\(o.size)")
            return r
        }
    }

    /// Whether `Accept-Encoding` allows gzip.
    static func acceptsGzip(_ req: HTTPRequest) -> Bool {
        req.headers.values("Accept-Encoding").flatMap { $0.split(separator: ",") }.contains { item in
            let parts = item.split(separator: ";").map { $0.trimming(" \t").lowercased() }
            guard parts.first == "gzip" || parts.first == "*" else { return false }
            return !parts.dropFirst().contains { $0 == "q=0" || $0 == "q=0.0" || $0 == "q=0.00" || $0 == "q=0.000" }
        }
    }

    /// `length` bytes from `start`: inline when small, else streamed with the length announced.
    static func stream(_ o: StorageObject, start: Int64, length: Int64, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        if length <= inlineLimit {
            var bytes: [UInt8] = []
            if length > 0, let reader = try? o.blob.open(), let b = try? reader.read(at: start, count: Int(length)) { bytes = b }
            var r = HTTPResponse(status: status, headers: headers, body: bytes)
            if bytes.count != Int(length) { r = ErrorResponder.response(for: EmulatorError.internal("Cannot read the object's bytes.")) }
            return r
        }
        var r = HTTPResponse(status: status, headers: headers)
        r.streamContentLength = Int(length)
        let blob = o.blob
        r.stream = { writer in
            guard let reader = try? blob.open() else { return }  // the connection closes short: the client sees an error
            var offset = start
            let end = start + length
            while offset < end {
                let n = Int(min(Int64(pieceSize), end - offset))
                guard let piece = try? reader.read(at: offset, count: n), !piece.isEmpty else { return }
                do { try await writer.write(piece) } catch { return }
                offset += Int64(piece.count)
            }
        }
        return r
    }

    /// The object decompressed on the way out (chunked: the decompressed length is not stored).
    static func inflated(_ o: StorageObject, headers: HTTPHeaders) -> HTTPResponse {
        var r = HTTPResponse(status: 200, headers: headers)
        let blob = o.blob
        r.stream = { writer in
            guard let reader = try? blob.open(), let inflater = GzipInflater() else { return }
            var offset: Int64 = 0
            while offset < blob.size {
                guard let piece = try? reader.read(at: offset, count: Int(min(Int64(pieceSize), blob.size - offset))), !piece.isEmpty else { return }
                offset += Int64(piece.count)
                inflater.feed(piece)
                do {
                    while let plain = try inflater.next() { if !plain.isEmpty { try await writer.write(plain) } }
                } catch { return }
            }
        }
        return r
    }

    /// An HTTP date (`Tue, 15 Nov 1994 08:12:31 GMT`).
    static func httpDate(_ t: Timestamp) -> String {
        let days = t.seconds >= 0 ? t.seconds / 86_400 : (t.seconds - 86_399) / 86_400
        let secs = t.seconds - days * 86_400
        let (y, m, d) = Timestamp.civilFromDays(days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][Int(((days % 7) + 7) % 7)]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][Int(max(1, min(12, m))) - 1]
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(weekday), \(two(d)) \(month) \(y) \(two(secs / 3600)):\(two(secs % 3600 / 60)):\(two(secs % 60)) GMT"
    }
}
