import Foundation

/// One request to the emulator: method, path with query (`/emulator/v1/status`), header fields
/// and body. gRPC calls are requests too (`content-type: application/grpc`, framed messages).
public struct EmulatorRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// Path and query, starting with `/`.
    public var path: String
    /// Header fields in order (names as sent).
    public var headers: [(String, String)]
    /// Body bytes.
    public var body: Data

    /// Creates a request.
    public init(method: String, path: String, headers: [(String, String)] = [], body: Data = Data()) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }
}

/// One answer: status, header fields, body, and for gRPC calls the trailers.
public struct EmulatorResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// Header fields in order.
    public var headers: [(String, String)]
    /// Body bytes.
    public var body: Data
    /// Trailer fields (gRPC's `grpc-status` and `grpc-message`); empty for plain HTTP.
    public var trailers: [(String, String)]

    /// Creates a response.
    public init(status: Int, headers: [(String, String)] = [], body: Data = Data(), trailers: [(String, String)] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    /// The first value of header `name` (case-insensitive), trailers included.
    public func header(_ name: String) -> String? {
        (headers + trailers).first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }
}

/// How requests reach an emulator. `URLSessionTransport` talks to a running one over HTTP; the
/// emulator's own test suite supplies an in-process transport (`EmulatorTestSupport`) that calls
/// its request pipeline directly, without sockets. Implementations must be safe to call
/// concurrently.
public protocol EmulatorTransport: Sendable {
    /// Sends one request and returns the answer (any status); throws only when there is no answer.
    func send(_ request: EmulatorRequest) async throws(FirebaseEmulatorError) -> EmulatorResponse

    /// A short description for messages ("http://127.0.0.1:4400", "in-process").
    var endpoint: String { get }
}
