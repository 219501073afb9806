import EmulatorCore
import Testing

@testable import EmulatorHTTP

/// Form bodies, the `headers=` block and how requests on a channel path are told apart.
@Suite struct WebChannelRequestTests {
    /// The first request of a captured Firestore Write session (firebase 12.3.0 in Chromium).
    static let capturedHandshake =
        "headers=X-Goog-Api-Client%3Agl-js%2F%20fire%2F12.3.0%0D%0AContent-Type%3Atext%2Fplain%0D%0AX-Firebase-GMPID%3A1%3A1%3Aweb%3A1%0D%0A&count=1&ofs=0&req0___data__=%7B%22database%22%3A%22projects%2Fdemo-cap%2Fdatabases%2F(default)%22%7D"

    @Test func parsesTheCapturedHandshake() throws {
        let f = try WebChannelForm.parse(Array(Self.capturedHandshake.utf8))
        #expect(f.offset == 0)
        #expect(f.maps == [["__data__": "{\"database\":\"projects/demo-cap/databases/(default)\"}"]])
        let h = try #require(f.headers)
        #expect(h["x-goog-api-client"] == "gl-js/ fire/12.3.0")
        #expect(h["X-Firebase-GMPID"] == "1:1:web:1")
        #expect(h.fields.count == 3)
    }

    @Test func severalMapsAndOtherFields() throws {
        let f = try WebChannelForm.parse(Array("count=2&ofs=3&req0___data__=a&req1___data__=b+c&req1_x=%2B&zx=1".utf8))
        #expect(f.offset == 3 && f.maps == [["__data__": "a"], ["__data__": "b c", "x": "+"]])
        #expect(try WebChannelForm.parse([]) == WebChannelForm())
        #expect(try WebChannelForm.parse(Array("count=2&ofs=0&req0___data__=a".utf8)).maps == [["__data__": "a"], [:]])
    }

    @Test(arguments: [
        ("count=x", "'count' must be a number"), ("count=1001&ofs=0", "from 0 to 1000"), ("count=1&count=1&ofs=0", "twice"),
        ("count=1", "no 'ofs'"), ("req0___data__=a", "no 'count'"), ("count=1&ofs=0&req1___data__=a", "outside count=1"),
        ("count=1&ofs=0&req0___data__=a&req0___data__=b", "given twice"), ("count=1&ofs=0&req0___data__=%G0", "malformed percent-escape"),
        ("count=1&ofs=-1", "'ofs' must be"), ("count=1&ofs=0&req99999999999999999999___data__=a", "exceeds 1000"),
        ("headers=a%0D%0Ab&count=0", "has no ':'"), ("headers=%20a%3Ab&count=0", "invalid header name"),
        ("headers=a%3Ab&headers=c%3Ad", "given twice"),
    ])
    func refusesMalformedBodies(_ body: String, _ fragment: String) {
        #expect {
            _ = try WebChannelForm.parse(Array(body.utf8))
        } throws: { error in
            guard let e = error as? EmulatorError else { return false }
            return e.code == .invalidArgument && e.message.contains(fragment)
        }
    }

    @Test func refusesInvalidUTF8AndTooManyHeaders() throws {
        #expect(throws: EmulatorError.self) { _ = try WebChannelForm.parse([0x63, 0x3D, 0xFF]) }
        let many = (0...WebChannelForm.maxHeaders).map { "h\($0):v" }.joined(separator: "\r\n")
        #expect(throws: EmulatorError.self) { _ = try WebChannelForm.headerBlock(many) }
        #expect(try WebChannelForm.headerBlock("A: b\nC:d\r\n\r\n").fields.map(\.value) == ["b", "d"])
    }

    func parse(_ method: String, _ query: String, _ body: String = "") throws -> WebChannelRequest {
        try WebChannelRequest.parse(HTTPRequest(method: method, target: "/x/channel?" + query, body: Array(body.utf8)))
    }

    @Test func tellsRequestsApartByMethodAndParameters() throws {
        #expect(
            try parse("POST", "VER=8&RID=1&CVER=22&X-HTTP-Session-Id=gsessionid&zx=a&t=1", "count=0")
                == .open(WebChannelForm(), httpSessionIdParameter: "gsessionid"))
        #expect(
            try parse("POST", "VER=8&SID=s1&RID=2&AID=4", "count=1&ofs=1&req0___data__=m")
                == .forward(sid: "s1", ack: 4, WebChannelForm(offset: 1, maps: [["__data__": "m"]])))
        #expect(
            try parse("GET", "gsessionid=g&VER=8&RID=rpc&SID=s1&AID=0&CI=1&TYPE=xmlhttp&TO=5000")
                == .backchannel(sid: "s1", ack: 0, longPoll: true, timeoutMilliseconds: 5000))
        #expect(try parse("GET", "SID=s1&RID=rpc&TYPE=xmlhttp") == .backchannel(sid: "s1", ack: nil, longPoll: false, timeoutMilliseconds: nil))
        #expect(try parse("POST", "VER=8&SID=s1&RID=9&TYPE=terminate", "") == .terminate(sid: "s1"))
        #expect(try parse("GET", "VER=8&SID=s1&TYPE=terminate") == .terminate(sid: "s1"))
        #expect(try parse("POST", "SID=s1&AID=-1", "") == .forward(sid: "s1", ack: -1, WebChannelForm()))
    }

    @Test(arguments: [
        ("POST", "VER=7"), ("GET", "VER=8"), ("GET", "SID=s&CI=2"), ("GET", "SID=s&AID=x"), ("GET", "SID=s&TO=-5"),
        ("PUT", "SID=s"), ("POST", "TYPE=terminate"), ("HEAD", "SID=s"),
    ])
    func refusesWhatIsNotAChannelRequest(_ method: String, _ query: String) {
        #expect(throws: EmulatorError.self) { _ = try parse(method, query) }
    }
}
