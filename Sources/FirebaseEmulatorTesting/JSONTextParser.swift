/// A small recursive-descent JSON parser for `JSONValue`: the same answer on every platform
/// (Foundation's `JSONSerialization` tells booleans from numbers differently on Linux and Darwin),
/// integers kept as `Int64` when they fit, nesting bounded.
struct JSONTextParser {
    let bytes: [UInt8]
    var i = 0
    var problem = ""
    static let maxDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The whole input as one value, or nil (with `problem` set).
    mutating func document() -> JSONValue? {
        guard let v = value(depth: 0) else { return nil }
        skipSpace()
        guard i == bytes.count else { return fail("trailing characters at offset \(i)") }
        return v
    }

    private mutating func fail(_ why: String) -> JSONValue? {
        if problem.isEmpty { problem = why }
        return nil
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private mutating func literal(_ word: String, _ v: JSONValue) -> JSONValue? {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { return fail("unexpected token at offset \(i)") }
        i += w.count
        return v
    }

    private mutating func value(depth: Int) -> JSONValue? {
        guard depth <= Self.maxDepth else { return fail("nested too deeply") }
        skipSpace()
        guard i < bytes.count else { return fail("unexpected end") }
        switch bytes[i] {
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "["):
            i += 1
            var out: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                i += 1
                return .array(out)
            }
            while true {
                guard let v = value(depth: depth + 1) else { return nil }
                out.append(v)
                skipSpace()
                guard i < bytes.count else { return fail("unterminated array") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(out)
                }
                return fail("expected , or ] at offset \(i)")
            }
        case UInt8(ascii: "{"):
            i += 1
            var out: [String: JSONValue] = [:]
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return .object(out)
            }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let k = string() else { return fail("expected a key at offset \(i)") }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return fail("expected : at offset \(i)") }
                i += 1
                guard let v = value(depth: depth + 1) else { return nil }
                out[k] = v
                skipSpace()
                guard i < bytes.count else { return fail("unterminated object") }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(out)
                }
                return fail("expected , or } at offset \(i)")
            }
        default: return number()
        }
    }

    private mutating func number() -> JSONValue? {
        let start = i
        var integral = true
        while i < bytes.count {
            let c = bytes[i]
            if (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") {
                i += 1
            } else if c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                integral = false
                i += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard !text.isEmpty else { return fail("unexpected character at offset \(start)") }
        if integral, let n = Int64(text) { return .int(n) }
        guard let d = Double(text) else { return fail("bad number '\(text)'") }
        return .double(d)
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16) else { return nil }
        i += 4
        return v
    }

    private mutating func string() -> String? {
        i += 1  // the opening quote
        var out = [UInt8]()
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard i < bytes.count else { break }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else {
                        problem = "bad \\u escape"
                        return nil
                    }
                    if (0xD800..<0xDC00).contains(scalar), i + 6 <= bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else {
                            problem = "bad surrogate pair"
                            return nil
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
                default: out.append(e)
                }
            default: out.append(c)
            }
        }
        problem = "unterminated string"
        return nil
    }
}
