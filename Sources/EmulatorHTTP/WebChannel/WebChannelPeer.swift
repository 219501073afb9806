import Glibc

/// The client a WebChannel session is counted against: the host part of the request's peer
/// address, without its port (every connection of one machine is one peer). A value type.
///
/// `127.0.0.1:53211` and `[::ffff:127.0.0.1]:53211` are both `127.0.0.1` (a dual-stack listener
/// sees IPv4 clients as mapped IPv6 addresses), `[::1]:53211` is `::1`, and a request without an
/// address (in-process callers, tests) is the one peer `unknown`. Any other IPv6 address counts as
/// its /64 (`2001:db8:1:2::/64`): a host may use every address of its prefix.
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
        if host.contains(":"), host != "::1", let prefix = prefix64(of: host) { return prefix }
        return host.isEmpty ? "unknown" : String(host)
    }

    /// The /64 an IPv6 address is in, as `2001:db8:1:2::/64` (nil when `text` is not one). A host
    /// is given a whole /64 and can use any address in it, so the prefix is the peer.
    private static func prefix64(of text: Substring) -> String? {
        let bare = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? ""  // a zone: `fe80::1%eth0`
        var address = in6_addr()
        guard inet_pton(AF_INET6, bare, &address) == 1 else { return nil }
        withUnsafeMutableBytes(of: &address) { bytes in
            for i in 8..<16 { bytes[i] = 0 }
        }
        var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &out, socklen_t(out.count)) != nil else { return nil }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/64"
    }
}
