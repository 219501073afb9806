import Testing

@testable import EmulatorHTTP

/// Who a WebChannel session counts against (`maxSessionsPerPeer`).
@Suite struct WebChannelPeerTests {
    @Test(
        arguments: [
            ("127.0.0.1:53211", "127.0.0.1"),
            ("[::ffff:127.0.0.1]:53211", "127.0.0.1"),
            ("[::1]:53211", "::1"),
            (nil, "unknown"),
            ("", "unknown"),
            ("example.test", "example.test"),
            // An IPv6 host is given a /64 and may use every address in it: the whole prefix is one
            // peer, or one host could hold as many shares as it has addresses.
            ("[2001:db8:1:2::1]:443", "2001:db8:1:2::/64"),
            ("[2001:db8:1:2:ffff:ffff:ffff:ffff]:1", "2001:db8:1:2::/64"),
            ("2001:0db8:0001:0002:0000:0000:0000:0007", "2001:db8:1:2::/64"),
            ("[2001:db8:1:3::1]:443", "2001:db8:1:3::/64"),
            ("[fe80::1%eth0]:80", "fe80::/64"),
        ] as [(String?, String)])
    func peersAreHostsAndIPv6Prefixes(address: String?, peer: String) {
        #expect(WebChannelPeer(remoteAddress: address).host == peer)
    }

    @Test func addressesOfOneIPv6PrefixShareOnePeer() {
        #expect(WebChannelPeer(remoteAddress: "[2001:db8::1]:1") == WebChannelPeer(remoteAddress: "[2001:db8::2]:2"))
        #expect(WebChannelPeer(remoteAddress: "[2001:db8::1]:1") != WebChannelPeer(remoteAddress: "[2001:db8:0:1::1]:1"))
    }
}
