import EmulatorCore

/// Answers one request. The server calls it once per request, in order per connection.
public typealias HTTPResponder = @Sendable (HTTPRequest) async -> HTTPResponse

/// An address the server is listening on (the real port when 0 was asked for).
public struct BoundAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host as configured.
    public var host: String
    /// The bound port.
    public var port: Int
    /// Creates a bound address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
    /// `host:port`, with brackets around IPv6 literals.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the address.
    public var description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}

/// The hand-written HTTP/1.1 server (placeholder API; implemented in HTTPServer+*.swift).
public final class HTTPServer: Sendable {
    /// The configuration it was created with.
    public let configuration: HTTPServerConfiguration
    let responder: HTTPResponder

    /// Creates a server; nothing is bound until `start()`.
    public init(configuration: HTTPServerConfiguration, responder: @escaping HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
    }

    /// Binds every listener and starts serving. Returns the bound addresses in listener order.
    public func start() throws -> [BoundAddress] {
        fatalError("HTTPServer is being implemented")
    }

    /// Stops accepting, lets in-flight requests finish (bounded by `shutdownGrace`), closes all.
    public func shutdown() async {
        fatalError("HTTPServer is being implemented")
    }
}
