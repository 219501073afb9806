/// The client a WebChannel session is counted against: the host part of the request's peer
/// address, without its port (every connection of one machine is one peer). A value type.
///
/// `127.0.0.1:53211` and `[::ffff:127.0.0.1]:53211` are both `127.0.0.1` (a dual-stack listener
/// sees IPv4 clients as mapped IPv6 addresses), `[::1]:53211` is `::1`, and a request without an
/// address (in-process callers, tests) is the one peer `unknown`.
public struct WebChannelPeer: Hashable, Sendable, CustomStringConvertible {
    /// The host part of the address.
    public let host: String

    /// The peer of a request whose `HTTPRequest.remoteAddress` is `remoteAddress`.
    public init(remoteAddress: String?) {
        host = Self.host(of: remoteAddress ?? "")
    }

    /// The host.
    public var description: String { host }

    private static func host(of address: String) -> String {
        var host = Substring(address)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {  // `[v6]:port`
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {  // `v4:port`
            host = host[..<colon]
        }  // else a bare IPv6 address or a name without port: as it is
        let mapped = "::ffff:"
        if host.lowercased().hasPrefix(mapped), host.contains(".") { host = host.dropFirst(mapped.count) }
        return host.isEmpty ? "unknown" : String(host)
    }
}
