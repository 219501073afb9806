import EmulatorCore

/// The form body of a WebChannel POST (`application/x-www-form-urlencoded`, `wirev8.js`):
/// `count=N&ofs=M&req0_<key>=<value>...req{N-1}_<key>=<value>`, plus on the handshake `headers=`
/// (the init headers as an HTTP header block). Map `K` carries map id `M+K`; a client that sends
/// raw JSON (Firestore) puts each message in one field named `__data__`.
///
/// Parsing is one linear pass over the body with every count bounded, and refuses what has no
/// single meaning (a malformed escape, a map index outside `count`, a field given twice) with an
/// error naming it. A value type.
public struct WebChannelForm: Sendable, Equatable {
    /// Map ids carried (`ofs`): the first map's id.
    public var offset: Int
    /// The maps in order, each its fields (`req3_foo=bar` → map 3, field `foo`).
    public var maps: [[String: String]]
    /// The handshake's header block (`headers=`), when sent.
    public var headers: HTTPHeaders?

    /// Maps one request may carry (the client sends at most a few hundred at once).
    public static let maxMaps = 1000
    /// Fields one map may carry.
    public static let maxFieldsPerMap = 100
    /// Header fields the `headers=` block may carry.
    public static let maxHeaders = 100

    /// Creates a form.
    public init(offset: Int = 0, maps: [[String: String]] = [], headers: HTTPHeaders? = nil) {
        self.offset = offset
        self.maps = maps
        self.headers = headers
    }

    /// Parses a body. An empty body is no maps (the terminate beacon sends none).
    public static func parse(_ body: [UInt8]) throws(EmulatorError) -> WebChannelForm {
        var count: Int?
        var offset: Int?
        var headers: HTTPHeaders?
        var fields: [(index: Int, key: String, value: String)] = []
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let eq = pair.firstIndex(of: UInt8(ascii: "="))
            let name = try decode(eq.map { pair[pair.startIndex..<$0] } ?? pair[...], what: "a field name")
            let value = try decode(eq.map { pair[pair.index(after: $0)...] } ?? [], what: "the value of '\(name.prefix(40))'")
            switch name {
            case "count":
                guard count == nil else { throw bad("'count' is given twice.") }
                guard let n = number(value), n <= maxMaps else {
                    throw bad("'count' must be a number from 0 to \(maxMaps), got '\(value.prefix(20))'.")
                }
                count = n
            case "ofs":
                guard offset == nil else { throw bad("'ofs' is given twice.") }
                guard let n = number(value), n <= Int(Int32.max) else {
                    throw bad("'ofs' must be a non-negative map id, got '\(value.prefix(20))'.")
                }
                offset = n
            case "headers":
                guard headers == nil else { throw bad("'headers' is given twice.") }
                headers = try headerBlock(value)
            default:
                guard let (index, key) = mapField(name) else { continue }  // other fields (`zx`-style extras) carry nothing
                guard index < maxMaps else { throw bad("map index \(index) in '\(name.prefix(40))' exceeds \(maxMaps).") }
                fields.append((index, key, value))
            }
        }
        let n = count ?? 0
        if count == nil, !fields.isEmpty { throw bad("The body has map fields but no 'count'.") }
        if n > 0, offset == nil { throw bad("The body has \(n) map(s) but no 'ofs'.") }
        var maps = Array(repeating: [String: String](), count: n)
        for f in fields {
            guard f.index < n else { throw bad("Map field 'req\(f.index)_\(f.key.prefix(40))' is outside count=\(n).") }
            guard maps[f.index][f.key] == nil else { throw bad("Map field 'req\(f.index)_\(f.key.prefix(40))' is given twice.") }
            guard maps[f.index].count < maxFieldsPerMap else { throw bad("Map \(f.index) has more than \(maxFieldsPerMap) fields.") }
            maps[f.index][f.key] = f.value
        }
        return WebChannelForm(offset: offset ?? 0, maps: maps, headers: headers)
    }

    /// Parses a header block: `Name:Value` lines separated by CRLF (a bare LF is accepted too);
    /// blank lines are skipped, the value is trimmed. Names must be HTTP tokens.
    public static func headerBlock(_ text: String) throws(EmulatorError) -> HTTPHeaders {
        var out = HTTPHeaders()
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            var line = rawLine[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw bad("A line of 'headers' has no ':' (\(String(decoding: line.prefix(40), as: UTF8.self))).")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(HTTPRequestHead.isTokenByte) else {
                throw bad("'headers' has an invalid header name '\(String(decoding: name.prefix(40), as: UTF8.self))'.")
            }
            let value = String(decoding: line[line.index(after: colon)...], as: UTF8.self).trimming(" \t")
            guard out.fields.count < maxHeaders else { throw bad("'headers' has more than \(maxHeaders) fields.") }
            out.add(String(decoding: name, as: UTF8.self), value)
        }
        return out
    }

    /// `req<K>_<key>` → (K, key); nil for other names.
    static func mapField(_ name: String) -> (Int, String)? {
        let u = Array(name.utf8)
        guard u.count > 4, u[0] == UInt8(ascii: "r"), u[1] == UInt8(ascii: "e"), u[2] == UInt8(ascii: "q") else { return nil }
        var i = 3
        var index = 0
        while i < u.count, u[i] >= UInt8(ascii: "0"), u[i] <= UInt8(ascii: "9") {
            index = index * 10 + Int(u[i] - UInt8(ascii: "0"))
            if index > maxMaps { index = maxMaps }  // clamped: the caller refuses it, without overflow
            i += 1
        }
        guard i > 3, i + 1 < u.count, u[i] == UInt8(ascii: "_") else { return nil }
        return (index, String(decoding: u[(i + 1)...], as: UTF8.self))
    }

    /// A non-negative decimal number of at most 10 digits.
    static func number(_ s: String) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 10, s.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(s)
    }

    private static func decode(_ bytes: some Collection<UInt8>, what: String) throws(EmulatorError) -> String {
        let raw = String(decoding: bytes, as: UTF8.self)
        guard let s = PercentEncoding.decode(raw, plusIsSpace: true), String(validating: Array(bytes), as: UTF8.self) != nil else {
            throw bad("The form body has a malformed percent-escape or invalid UTF-8 in \(what).")
        }
        return s
    }

    static func bad(_ message: String) -> EmulatorError { .invalidArgument("Invalid WebChannel request: \(message)") }
}
