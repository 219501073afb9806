/// One file of the UI as served: its media type, its bytes and a strong validator.
struct UIAsset: Sendable {
    let contentType: String
    let bytes: [UInt8]
    /// A strong validator: FNV-1a of the bytes.
    let etag: String

    init(contentType: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.bytes = bytes
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        etag = "\"" + String(h, radix: 16) + "\""
    }

    /// The media types of the file kinds the UI ships, by file name extension.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
    ]

    /// The media type for a file name; `application/octet-stream` for a kind not in `contentTypes`
    /// (a test requires every shipped file to have a known type).
    static func contentType(forName name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return contentTypes[String(name[name.index(after: dot)...])] ?? "application/octet-stream"
    }
}
