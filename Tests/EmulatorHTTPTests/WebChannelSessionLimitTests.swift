import EmulatorCore
import Testing

@testable import EmulatorHTTP

/// What bounds the sessions of a `WebChannelServer` against a client that opens sessions without
/// using them: the per-peer share, the early reaping of sessions that never attach a backchannel,
/// and their eviction to make room at a cap (the manual clock of `WebChannelServerTests`).
@Suite struct WebChannelSessionLimitTests {
    typealias T = WebChannelServerTests

    /// A handshake from `remoteAddress`; returns the session id.
    static func open(_ f: T.Fixture, from remoteAddress: String?) async throws -> String {
        let r = try await f.server.handle(
            HTTPRequest(
                method: "POST", target: "/c?VER=8&RID=1&CVER=22&X-HTTP-Session-Id=gsessionid", body: T.body([], ofs: 0),
                remoteAddress: remoteAddress))
        var reader = WebChannelChunkReader()
        reader.feed(r.body)
        let c = try JSON.parse(try #require(try reader.next()))
        return try #require(c.arrayValue?.first?.arrayValue?.last?.arrayValue?[1].stringValue)
    }

    /// Attaches a backchannel GET (not served: attaching is what counts here).
    static func attach(_ f: T.Fixture, _ sid: String) async throws {
        let r = try await f.server.handle(HTTPRequest(method: "GET", target: "/c?VER=8&RID=rpc&SID=\(sid)&AID=0&CI=0&TYPE=xmlhttp"))
        #expect(r.stream != nil)
    }

    /// The error of a refused handshake from `remoteAddress`.
    static func refusal(_ f: T.Fixture, from remoteAddress: String?) async -> EmulatorError? {
        do {
            _ = try await open(f, from: remoteAddress)
            return nil
        } catch let e as EmulatorError {
            return e
        } catch {
            return nil
        }
    }

    /// Whether the service's stream of the `n`th session opened was closed.
    static func streamClosed(_ f: T.Fixture, _ n: Int) -> Bool {
        f.service.streams.withLock { $0[n].closed.withLock { $0 } }
    }

    @Test func onePeerCannotTakeMoreThanItsShareAndAnotherPeerStillOpens() async throws {
        let f = T.fixture {
            $0.maxSessions = 100
            $0.maxSessionsPerPeer = 3
        }
        // Every connection of one machine is one peer, whatever its port or address family.
        for address in ["10.0.0.1:40001", "10.0.0.1:40002", "[::ffff:10.0.0.1]:40003"] {
            try await Self.attach(f, try await Self.open(f, from: address))
        }
        let refused = try #require(await Self.refusal(f, from: "10.0.0.1:40004"))
        #expect(refused.code == .resourceExhausted)
        #expect(refused.message.contains("maxSessionsPerPeer") && refused.message.contains("3 sessions"))
        #expect(f.server.sessionCount == 3)
        let other = try await Self.open(f, from: "10.0.0.2:40001")
        #expect(f.server.session(other) != nil)
        // Requests without an address are one peer of their own.
        _ = try await Self.open(f, from: nil)
        #expect(f.server.sessionCount == 5)
    }

    @Test func aSessionThatNeverAttachesIsReapedAfterTheUnattachedTimeout() async throws {
        let f = T.fixture()  // unattachedTimeout 60 s, sessionTimeout 180 s
        let idle = try await Self.open(f, from: "10.0.0.1:1")
        let posting = try await Self.open(f, from: "10.0.0.1:2")
        let attached = try await Self.open(f, from: "10.0.0.1:3")
        try await Self.attach(f, attached)
        f.clock.advance(.seconds(30))
        _ = try await T.post(f, posting, ["m"], ofs: 0)  // forward POSTs without a backchannel receive nothing: not attached
        f.clock.advance(.seconds(29))
        f.server.maintain()
        #expect(f.server.sessionCount == 3)
        f.clock.advance(.seconds(1))
        f.server.maintain()
        #expect(f.server.session(idle) == nil && f.server.session(posting) == nil)
        #expect(Self.streamClosed(f, 0) && Self.streamClosed(f, 1))
        #expect(f.server.session(attached) != nil && !Self.streamClosed(f, 2))
        await #expect(throws: EmulatorError.self) { _ = try await T.post(f, idle, [], ofs: 0) }
    }

    @Test func atTheCapAHandshakeEvictsTheOldestUnattachedSessionNeverAnAttachedOne() async throws {
        let f = T.fixture { $0.maxSessions = 3 }
        let a = try await Self.open(f, from: "10.0.0.9:1")
        try await Self.attach(f, a)
        f.clock.advance(.seconds(1))
        let b = try await Self.open(f, from: "10.0.0.1:1")  // an attacker's handshakes, never attached
        f.clock.advance(.seconds(1))
        let c = try await Self.open(f, from: "10.0.0.1:2")
        f.clock.advance(.seconds(1))
        let d = try await Self.open(f, from: "10.0.0.2:1")  // the table is full: b makes room
        #expect(f.server.sessionCount == 3)
        #expect(f.server.session(b) == nil && Self.streamClosed(f, 1))
        #expect(f.server.session(a) != nil && f.server.session(c) != nil && f.server.session(d) != nil)
        try await Self.attach(f, d)
        let e = try await Self.open(f, from: "10.0.0.2:2")  // c makes room
        #expect(f.server.session(c) == nil && f.server.session(e) != nil)
        try await Self.attach(f, e)
        // Every session has attached: none is evicted and the handshake is refused.
        let refused = try #require(await Self.refusal(f, from: "10.0.0.3:1"))
        #expect(refused.code == .resourceExhausted && refused.message.contains("3 sessions (maxSessions)"))
        #expect(f.server.session(a) != nil && f.server.session(d) != nil && f.server.session(e) != nil)
        #expect(!Self.streamClosed(f, 0))
    }

    @Test func aPeerAtItsShareLosesItsOwnOldestUnattachedSession() async throws {
        let f = T.fixture {
            $0.maxSessions = 100
            $0.maxSessionsPerPeer = 2
        }
        let x = try await Self.open(f, from: "10.0.0.1:1")
        let y = try await Self.open(f, from: "10.0.0.2:1")  // older than z, but another peer's
        let z = try await Self.open(f, from: "10.0.0.1:2")
        let w = try await Self.open(f, from: "10.0.0.1:3")
        #expect(f.server.session(x) == nil && Self.streamClosed(f, 0))
        #expect(f.server.session(y) != nil && f.server.session(z) != nil && f.server.session(w) != nil)
        #expect(f.server.sessionCount == 3)
    }
}
