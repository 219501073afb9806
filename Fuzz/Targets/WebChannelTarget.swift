import EmulatorCore
import EmulatorHTTP

/// The `webchannel` target: the WebChannel request parser (`WebChannelRequest.parse`: query
/// parameters, form bodies with their `headers=` block) and the chunk framing in both directions.
///
/// Input: a configuration octet (bits 0–1 pick the method: POST, GET, PUT, POST; bits 2–7 the
/// chunk size, 1–64, for the framing half), then the query string up to the first `\n`, then the
/// body. The same bytes, as a response body, go through `WebChannelChunkReader`.
///
/// Properties: a form that parses, written back as a canonical body, parses to an equal form (maps,
/// offset, header block); a header block, written back, parses to the same fields; the chunk reader
/// yields the same chunks (or fails the same way) whether fed in pieces or whole; and every chunk
/// that is JSON, escaped to ASCII and framed again, reads back as one chunk whose value serializes
/// to the same text.
public enum WebChannelTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        guard let config = data.first else { return }
        let rest = data.dropFirst()
        let newline = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
        let query = String(decoding: rest[rest.startIndex..<newline], as: UTF8.self)
        let body = Array(rest[min(newline + 1, rest.endIndex)...])
        let method = ["POST", "GET", "PUT", "POST"][Int(config & 3)]
        try request(HTTPRequest(method: method, target: "/google.firestore.v1.Firestore/Listen/channel?" + query, body: body))
        try framing(Array(rest), piece: 1 + Int(config >> 2))
    }

    static func request(_ r: HTTPRequest) throws(FuzzViolation) {
        let parsed: WebChannelRequest
        do { parsed = try WebChannelRequest.parse(r) } catch { return }
        let form: WebChannelForm
        switch parsed {
        case .open(let f, _), .forward(_, _, let f): form = f
        case .backchannel(let sid, _, _, let timeout):
            guard !sid.isEmpty, (timeout ?? 0) >= 0 else { throw FuzzViolation(.webchannel, "backchannel with an empty SID or a negative TO") }
            return
        case .terminate(let sid):
            guard !sid.isEmpty else { throw FuzzViolation(.webchannel, "terminate with an empty SID") }
            return
        }
        let again: WebChannelForm
        do { again = try WebChannelForm.parse(canonical(form)) } catch {
            throw FuzzViolation(.webchannel, "the canonical body of a parsed form does not parse: \(error)")
        }
        guard again == form else { throw FuzzViolation(.webchannel, "form round trip: \(form) became \(again)") }
        if let h = form.headers {
            let text = h.fields.map { "\($0.name):\($0.value)\r\n" }.joined()
            guard let back = try? WebChannelForm.headerBlock(text), back == h else {
                throw FuzzViolation(.webchannel, "header block round trip failed for \(h.fields)")
            }
        }
    }

    /// The form as a client would write it (encodeURIComponent-style escapes).
    static func canonical(_ f: WebChannelForm) -> [UInt8] {
        var parts: [String] = []
        if let h = f.headers { parts.append("headers=" + PercentEncoding.encode(h.fields.map { "\($0.name):\($0.value)\r\n" }.joined())) }
        parts.append("count=\(f.maps.count)")
        parts.append("ofs=\(f.offset)")
        for (i, m) in f.maps.enumerated() {
            for (k, v) in m.sorted(by: { $0.key < $1.key }) { parts.append("req\(i)_" + PercentEncoding.encode(k) + "=" + PercentEncoding.encode(v)) }
        }
        return Array(parts.joined(separator: "&").utf8)
    }

    static func framing(_ bytes: [UInt8], piece: Int) throws(FuzzViolation) {
        func read(_ pieces: [ArraySlice<UInt8>]) -> (chunks: [[UInt8]], failed: Bool) {
            var r = WebChannelChunkReader(maxChunk: 1 << 16)
            var out: [[UInt8]] = []
            for p in pieces {
                r.feed(p)
                do { while let c = try r.next() { out.append(c) } } catch { return (out, true) }
            }
            return (out, false)
        }
        let whole = read([bytes[...]])
        let pieces = stride(from: 0, to: bytes.count, by: piece).map { bytes[$0..<min(bytes.count, $0 + piece)] }
        let split = read(pieces)
        guard whole.failed == split.failed, whole.chunks == split.chunks else {
            throw FuzzViolation(
                .webchannel,
                "chunk reader: \(whole.chunks.count) chunk(s) whole (failed: \(whole.failed)), \(split.chunks.count) in pieces (failed: \(split.failed))"
            )
        }
        for c in whole.chunks {
            guard let json = try? JSON.parse(c) else { continue }
            // What the server frames is the serialized value, and JSON writes an integral double
            // as an integer (`2.0` → `2`, as proto3 JSON does), so the property compares what the
            // value serializes to, not the parsed value's int/double case (a parsed `[1,2.0]`
            // reads back as `[1,2]`: same text, same value to a JSON client).
            let serialized = json.serializedBytes()
            let escaped = WebChannelFraming.ascii(serialized)
            guard escaped.allSatisfy({ $0 < 0x80 }) else { throw FuzzViolation(.webchannel, "ascii() left a non-ASCII byte") }
            var r = WebChannelChunkReader()
            r.feed(WebChannelFraming.chunk(escaped))
            guard let text = try? r.next(), r.pendingCount == 0, let back = try? JSON.parse(text), back.serializedBytes() == serialized else {
                throw FuzzViolation(.webchannel, "a framed chunk does not read back to the same JSON")
            }
        }
    }
}
