import EmulatorCore

/// A complete response. The server adds `Content-Length`, `Date`-free framing and `Connection`.
public struct HTTPResponse: Sendable {
    /// Status code.
    public var status: Int
    /// Header fields (the server sets `Content-Length` itself).
    public var headers: HTTPHeaders
    /// Body bytes (omitted on the wire for HEAD, 204 and 304).
    public var body: [UInt8]
    /// For a streaming response (Server-Sent Events): writes the body as it is produced, after the
    /// headers have gone out; `body` is then ignored. The response ends when it returns.
    public var stream: (@Sendable (any HTTPBodyWriter) async -> Void)?
    /// The exact length of a streaming body, when known (downloads): HTTP/1.1 then sends
    /// `Content-Length` and the bytes as they are, instead of chunked framing. A producer that
    /// writes fewer bytes ends the connection (the body cannot be framed otherwise).
    public var streamContentLength: Int?

    /// Creates a response.
    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`application/json; charset=utf-8`).
    public static func json(_ value: JSON, status: Int = 200, pretty: Bool = false) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json; charset=utf-8")
        return HTTPResponse(status: status, headers: h, body: value.serializedBytes(pretty: pretty))
    }

    /// A JSON response of already serialized bytes (`application/json; charset=utf-8`).
    public static func json(bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", "application/json; charset=utf-8")
        return HTTPResponse(status: status, headers: h, body: bytes)
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("Content-Type", contentType)
        return HTTPResponse(status: status, headers: h, body: Array(text.utf8))
    }

    /// The standard reason phrase of `status`.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 417: return "Expectation Failed"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 499: return "Client Closed Request"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }
}
