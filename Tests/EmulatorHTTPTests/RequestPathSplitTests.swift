import Testing

@testable import EmulatorHTTP

/// `RequestPath(path:)` splits over the string's bytes and notes each segment's `:` as it goes:
/// pinned against a split by `utf8` index and a scan of each segment, over generated paths
/// (escapes, colons, empty and dot segments, non-ASCII, more than 64 segments).
@Suite struct RequestPathSplitTests {
    static let fragments = ["a", "doc", "%2F", "%3A", ":", "x:y", "", ".", "..", "%2e", "é", "a\u{301}", "%zz", "%", "(default)", "~"]

    /// The split the byte loop replaced: at each `/` octet, one leading slash ignored.
    static func reference(_ path: String) -> [Substring] {
        let u = path.utf8
        var start = u.startIndex
        if start < u.endIndex, u[start] == UInt8(ascii: "/") { start = u.index(after: start) }
        guard start < u.endIndex else { return [] }
        var out: [Substring] = []
        var i = start
        while i < u.endIndex {
            if u[i] == UInt8(ascii: "/") {
                out.append(path[start..<i])
                start = u.index(after: i)
            }
            i = u.index(after: i)
        }
        out.append(path[start..<u.endIndex])
        return out
    }

    @Test func agreesWithASplitByIndex() {
        var rng = SplitMix(seed: 4417)
        for round in 0..<3_000 {
            let segments = round % 100 == 0 ? 70 : Int(rng.next() % 9)
            var path = rng.next() % 5 == 0 ? "" : "/"
            path += (0..<segments).map { _ in Self.fragments[Int(rng.next() % UInt64(Self.fragments.count))] }.joined(separator: "/")
            let p = RequestPath(path: path)
            let expected = Self.reference(path)
            #expect(p.raw.map(String.init) == expected.map(String.init), "\(path.debugDescription)")
            #expect(p.decoded == expected.map { PercentEncoding.decode(String($0)) }, "\(path.debugDescription)")
            for i in 0..<p.count {
                #expect(p.hasColon(i) == expected[i].utf8.contains(UInt8(ascii: ":")), "\(path.debugDescription) segment \(i)")
            }
        }
    }

    @Test func edgeForms() {
        #expect(RequestPath(path: "").count == 0)
        #expect(RequestPath(path: "/").count == 0)
        #expect(RequestPath(path: "//").raw == ["", ""])
        #expect(RequestPath(path: "a/b").raw == ["a", "b"])
        // Segments made by the array initializer have no noted colons: `hasColon` scans them.
        let made = RequestPath(["a:b", "c"])
        #expect(made.hasColon(0) && !made.hasColon(1))
    }

    /// Header names compare over contiguous bytes now; the answers are the zip-based ones.
    @Test func caseInsensitiveEqualsAgreesWithTheByteRule() {
        func reference(_ a: String, _ b: String) -> Bool {
            guard a.utf8.count == b.utf8.count else { return false }
            for (x, y) in zip(a.utf8, b.utf8) where x != y {
                let lx = x | 0x20, ly = y | 0x20
                if lx != ly || lx < 0x61 || lx > 0x7A { return false }
            }
            return true
        }
        let names = [
            "Host", "host", "HOST", "hosT", "Hos", "Content-Length", "content-length", "CONTENT-LENGTH", "Content\rLength", "X-Á", "x-á", "@", "`",
            "[", "{",
        ]
        for a in names {
            for b in names { #expect(a.caseInsensitiveEquals(b) == reference(a, b), "\(a) \(b)") }
        }
        var long = String(repeating: "Ab", count: 40)
        long.append("c")
        #expect(long.caseInsensitiveEquals(long.uppercased()))
    }
}
