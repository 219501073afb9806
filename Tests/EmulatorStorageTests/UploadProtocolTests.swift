import Testing

@testable import EmulatorStorage

/// Runs `body` through a parser in pieces of `size` bytes; content pieces are merged.
func multipartEvents(_ body: [UInt8], boundary: String, pieces size: Int) throws -> [String] {
    var p = try MultipartStreamParser(boundary: boundary)
    var out: [String] = []
    var i = 0
    while i < body.count {
        for e in try p.feed(Array(body[i..<min(body.count, i + size)])) {
            switch e {
            case .partStart(let h): out.append("start " + h.map { "\($0.name)=\($0.value)" }.joined(separator: ","))
            case .content(let c):
                if let last = out.last, last.hasPrefix("content ") {
                    out[out.count - 1] = last + String(decoding: c, as: UTF8.self)
                } else {
                    out.append("content " + String(decoding: c, as: UTF8.self))
                }
            case .partEnd: out.append("end part")
            case .end: out.append("end")
            }
        }
        i += size
    }
    try p.finish()
    return out
}

@Suite struct UploadProtocolTests {
    @Test func theJSSDKsMultipartBodyParsesTheSameInAnyPieces() throws {
        // The shape the Firebase JS SDK sends for uploadBytes (requests.ts multipartUpload).
        let b = "9871234512345"
        let body = Array(
            ("--\(b)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"name\":\"a/b.txt\",\"contentType\":\"text/plain\"}"
                + "\r\n--\(b)\r\nContent-Type: text/plain\r\n\r\nhello\r\n--\r\n--\(b)--").utf8)
        let expected = [
            "start Content-Type=application/json; charset=utf-8", "content {\"name\":\"a/b.txt\",\"contentType\":\"text/plain\"}", "end part",
            "start Content-Type=text/plain", "content hello\r\n--", "end part", "end",
        ]
        for size in [1, 2, 3, 7, 16, 1000] {
            #expect(try multipartEvents(body, boundary: b, pieces: size) == expected, "pieces of \(size)")
        }
    }

    @Test func preamblesEpiloguesAndEmptyPartsAreHandled() throws {
        let body = Array("ignored preamble\r\n--xyz  \r\n\r\n\r\n--xyz\r\nA: 1\r\nB:2\r\n\r\ndata\r\n--xyz--\r\nepilogue".utf8)
        #expect(try multipartEvents(body, boundary: "xyz", pieces: 3) == ["start ", "end part", "start A=1,B=2", "content data", "end part", "end"])
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/related; boundary=\"===abc==\"") == "===abc==")
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/related; charset=x;boundary=b1") == "b1")
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/related") == nil)
    }

    @Test func brokenBodiesAreRefused() throws {
        #expect(throws: MultipartError.self) { try multipartEvents(Array("--b\r\nno colon\r\n\r\nx\r\n--b--".utf8), boundary: "b", pieces: 4) }
        #expect(throws: MultipartError.self) { try multipartEvents(Array("--b\r\n\r\nunfinished".utf8), boundary: "b", pieces: 4) }
        #expect(throws: MultipartError.self) { try multipartEvents(Array("--bX\r\n".utf8), boundary: "b", pieces: 4) }
        #expect(throws: MultipartError.self) { try MultipartStreamParser(boundary: "") }
        var p = try MultipartStreamParser(boundary: "b", maxParts: 2)
        #expect(throws: MultipartError.self) { try p.feed(Array("--b\r\n\r\n\r\n--b\r\n\r\n\r\n--b\r\n\r\n".utf8)) }
        var h = try MultipartStreamParser(boundary: "b")
        #expect(throws: MultipartError.self) { try h.feed(Array("--b\r\nX: ".utf8) + [UInt8](repeating: 65, count: 20_000)) }
    }

    @Test func contentRangesOfResumableUploads() throws {
        typealias H = UploadProtocolHeaders
        #expect(try H.contentRange("bytes 0-262143/*") == .bytes(first: 0, last: 262_143, total: nil))
        #expect(try H.contentRange("bytes 262144-524287/1000000") == .bytes(first: 262_144, last: 524_287, total: 1_000_000))
        #expect(try H.contentRange("bytes */1000000") == .probe(total: 1_000_000))
        #expect(try H.contentRange("bytes */*") == .probe(total: nil))
        for bad in ["", "bytes", "bytes 5-1/*", "bytes 0-9/5", "bytes a-b/*", "items 0-1/2", "bytes 0-99999999999999999999/*"] {
            #expect(throws: UploadHeaderError.self, "\(bad)") { try H.contentRange(bad) }
        }
    }

    @Test func downloadRanges() {
        typealias H = UploadProtocolHeaders
        #expect(H.byteRange(nil, size: 10) == .whole)
        #expect(H.byteRange("bytes=2-5", size: 10) == .partial(start: 2, end: 5))
        #expect(H.byteRange("bytes=2-50", size: 10) == .partial(start: 2, end: 9))
        #expect(H.byteRange("bytes=7-", size: 10) == .partial(start: 7, end: 9))
        #expect(H.byteRange("bytes=-3", size: 10) == .partial(start: 7, end: 9))
        #expect(H.byteRange("bytes=-30", size: 10) == .partial(start: 0, end: 9))
        #expect(H.byteRange("bytes=10-", size: 10) == .unsatisfiable)
        #expect(H.byteRange("bytes=-0", size: 10) == .unsatisfiable)
        #expect(H.byteRange("bytes=0-1,3-4", size: 10) == .whole)
        #expect(H.byteRange("bytes=5-2", size: 10) == .whole)
        #expect(H.byteRange("items=0-1", size: 10) == .whole)
        #expect(H.byteRange("bytes=0-", size: 0) == .whole)
    }

    @Test func uploadCommands() throws {
        typealias H = UploadProtocolHeaders
        #expect(try H.uploadCommands("start") == .start)
        #expect(try H.uploadCommands("upload, finalize") == [.upload, .finalize])
        #expect(try H.uploadCommands("Finalize") == .finalize)
        #expect(try H.uploadCommands("query") == .query)
        for bad in ["", "stop", "start, upload", "query, cancel"] {
            #expect(throws: UploadHeaderError.self, "\(bad)") { try H.uploadCommands(bad) }
        }
    }
}
