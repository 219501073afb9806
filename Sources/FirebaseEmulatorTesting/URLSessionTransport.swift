import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to a running emulator over HTTP/1.1 with `URLSession` (FoundationNetworking on Linux).
/// gRPC needs HTTP/2 cleartext, which URLSession does not speak: gRPC requests throw
/// `.unavailable`. Immutable; safe to share.
public struct URLSessionTransport: EmulatorTransport {
    /// `http://host:port`.
    public let baseURL: URL
    /// The session requests go through (its own, ephemeral, no caching, no cookies).
    public let session: URLSession
    /// Seconds before a request gives up.
    public let timeout: TimeInterval

    /// A transport to `host:port` (as `FIREBASE_EMULATOR_HUB` names it; `http://` optional).
    public init(host: String, timeout: TimeInterval = 30) throws(FirebaseEmulatorError) {
        let text = host.hasPrefix("http://") || host.hasPrefix("https://") ? host : "http://" + host
        guard let url = URL(string: text.hasSuffix("/") ? String(text.dropLast()) : text), url.host != nil else {
            throw .unavailable("'\(host)' is not a host:port")
        }
        let config = URLSessionConfiguration.ephemeral
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        config.httpCookieStorage = nil
        config.connectionProxyDictionary = [:]
        config.timeoutIntervalForRequest = timeout
        self.baseURL = url
        self.session = URLSession(configuration: config)
        self.timeout = timeout
    }

    /// The base URL.
    public var endpoint: String { baseURL.absoluteString }

    /// Sends the request over HTTP/1.1.
    public func send(_ request: EmulatorRequest) async throws(FirebaseEmulatorError) -> EmulatorResponse {
        if request.header("content-type")?.hasPrefix("application/grpc") == true {
            throw .unavailable("gRPC needs HTTP/2 cleartext, which URLSession does not speak; use a gRPC client, or the in-process transport")
        }
        guard let url = URL(string: baseURL.absoluteString + request.path) else {
            throw .transport("bad path \(request.path)")
        }
        var r = URLRequest(url: url, timeoutInterval: timeout)
        r.httpMethod = request.method
        for (k, v) in request.headers { r.addValue(v, forHTTPHeaderField: k) }
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) { r.httpBody = request.body }
        do {
            let (data, response) = try await session.data(for: r)
            guard let http = response as? HTTPURLResponse else { throw FirebaseEmulatorError.transport("not an HTTP response") }
            let headers = http.allHeaderFields.compactMap { k, v -> (String, String)? in
                guard let k = k as? String else { return nil }
                return (k, "\(v)")
            }
            return EmulatorResponse(status: http.statusCode, headers: headers, body: data)
        } catch let e as FirebaseEmulatorError {
            throw e
        } catch {
            throw .transport("\(request.method) \(url.absoluteString): \(error.localizedDescription)")
        }
    }
}
