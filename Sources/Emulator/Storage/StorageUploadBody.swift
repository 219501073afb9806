import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// Request bodies of uploads, read as they arrive into a `StorageUpload` (a file): whole bodies
/// (media uploads, resumable chunks) and `multipart/related` bodies (a JSON metadata part, then
/// the media part, which streams).
enum StorageUploadBody {
    /// Appends the body to `upload`, dropping its first `skip` bytes (a resent chunk's overlap).
    /// Returns the bytes the body had.
    @discardableResult
    static func receive(_ req: HTTPRequest, into upload: StorageUpload, skip: Int64 = 0) async throws -> Int64 {
        var seen: Int64 = 0
        func take(_ chunk: [UInt8]) throws {
            let start = seen
            seen += Int64(chunk.count)
            if seen <= skip { return }
            try upload.append(start >= skip ? chunk : Array(chunk[Int(skip - start)...]))
        }
        if let reader = req.bodyStream {
            while let chunk = try await reader.read() { try take(chunk) }
        } else {
            try take(req.body)
        }
        return seen
    }

    /// A multipart upload's metadata (the first part, JSON) and media (the second part, streamed
    /// into a new upload); `mediaType` is the media part's Content-Type.
    struct Multipart {
        var metadata: UTF8Dictionary<JSON>
        var mediaType: String?
        var upload: StorageUpload
    }

    /// Reads a `multipart/related` upload body.
    static func multipart(_ req: HTTPRequest, _ storage: StorageService) async throws -> Multipart {
        guard let type = req.headers["Content-Type"], type.lowercased().hasPrefix("multipart/"),
            let boundary = MultipartStreamParser.boundary(fromContentType: type)
        else {
            throw EmulatorError.invalidArgument("A multipart upload needs Content-Type: multipart/related; boundary=...")
        }
        var parser: MultipartStreamParser
        do { parser = try MultipartStreamParser(boundary: boundary, maxParts: 2) } catch { throw EmulatorError.invalidArgument(error.description) }
        let upload = try storage.startUpload()
        var part = 0
        var metadataBytes: [UInt8] = []
        var mediaType: String?
        func handle(_ events: [MultipartStreamParser.Event]) throws {
            for e in events {
                switch e {
                case .partStart(let headers):
                    part += 1
                    if part == 2 { mediaType = headers.value("Content-Type") }
                case .content(let bytes):
                    if part == 1 {
                        guard metadataBytes.count + bytes.count <= StorageHTTP.maxJSONBody else {
                            throw EmulatorError.invalidArgument("The metadata part of the multipart upload exceeds 1 MiB.")
                        }
                        metadataBytes += bytes
                    } else {
                        try upload.append(bytes)
                    }
                case .partEnd, .end: break
                }
            }
        }
        do {
            if let reader = req.bodyStream {
                while let chunk = try await reader.read() { try handle(try parser.feed(chunk)) }
            } else {
                try handle(try parser.feed(req.body))
            }
            try parser.finish()
        } catch let e as MultipartError {
            throw EmulatorError.invalidArgument("Invalid multipart upload body: \(e.description).")
        }
        guard part == 2 else { throw EmulatorError.invalidArgument("A multipart upload needs two parts: the JSON metadata, then the media.") }
        let metadata: UTF8Dictionary<JSON>
        do {
            let json = metadataBytes.isEmpty ? JSON.object([:]) : try JSON.parse(metadataBytes)
            guard case .object(let o) = json else { throw EmulatorError.invalidArgument("The metadata part must be a JSON object.") }
            metadata = o
        } catch let e as JSONParseError {
            throw EmulatorError.invalidArgument("The metadata part is not valid JSON: \(e.description).")
        }
        return Multipart(metadata: metadata, mediaType: mediaType, upload: upload)
    }
}
