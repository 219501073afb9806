/// One parsed HTTP request: its body read whole, or (uploads) readable from `bodyStream`.
public struct HTTPRequest: Sendable {
    /// The method, as sent (tokens are case-sensitive; servers compare uppercase).
    public var method: String
    /// The raw request target (`/v1/x?y=1`).
    public var target: String
    /// The raw path part of the target, still percent-encoded.
    public var path: String
    /// The raw query string after `?` (empty when none), still percent-encoded.
    public var rawQuery: String
    /// Header fields.
    public var headers: HTTPHeaders
    /// The body bytes (de-chunked).
    public var body: [UInt8]
    /// "HTTP/1.1" or "HTTP/1.0".
    public var version: String
    /// The peer address, when known ("127.0.0.1:53211").
    public var remoteAddress: String?
    /// The body as it arrives, for requests the server's `HTTPBodyStreamingPolicy` picked (then
    /// `body` is empty); nil for every other request.
    public var bodyStream: (any HTTPRequestBodyReader)?

    /// Creates a request; `target` is split into `path` and `rawQuery`.
    public init(
        method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        version: String = "HTTP/1.1", remoteAddress: String? = nil
    ) {
        self.method = method
        self.target = target
        // By byte: the query starts at the first `?` octet (RFC 3986), whatever follows it, and a
        // search by `Character` would pay for grapheme breaking on every request.
        let bytes = target.utf8
        if let q = bytes.firstIndex(of: UInt8(ascii: "?")) {
            self.path = String(Substring(bytes[..<q]))
            self.rawQuery = String(Substring(bytes[bytes.index(after: q)...]))
        } else {
            self.path = target
            self.rawQuery = ""
        }
        self.headers = headers
        self.body = body
        self.version = version
        self.remoteAddress = remoteAddress
    }

    /// Creates a request whose target the caller already split at its first `?` (the parser,
    /// which found it while checking the target's bytes).
    init(
        method: String, target: String, path: String, rawQuery: String, headers: HTTPHeaders, body: [UInt8], version: String
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
        self.version = version
        self.remoteAddress = nil
    }

    /// Query parameters in order, percent-decoded (`+` means space, as HTML forms send it).
    public var queryItems: [(name: String, value: String)] {
        guard !rawQuery.isEmpty else { return [] }
        return rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decode(String(parts[0]), plusIsSpace: true) ?? String(parts[0])
            let value = parts.count > 1 ? (PercentEncoding.decode(String(parts[1]), plusIsSpace: true) ?? String(parts[1])) : ""
            return (name, value)
        }
    }

    /// The first value of query parameter `name`.
    public func query(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

    /// Every value of query parameter `name` (repeated parameters such as `mask.fieldPaths`).
    public func queryValues(_ name: String) -> [String] { queryItems.filter { $0.name == name }.map(\.value) }
}
