extension JSON {
    /// Compact serialization with sorted object keys (deterministic output).
    public func serialized() -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Serialization as UTF-8 bytes; `pretty` uses two-space indentation like Google's APIs.
    public func serializedBytes(pretty: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(to: &out, indent: pretty ? 2 : nil, level: 0)
        return out
    }

    /// Appends the compact serialization to `out`: `serializedBytes()` without a buffer of its
    /// own, for writers that assemble an answer from parts.
    public func write(to out: inout [UInt8]) { write(to: &out, indent: nil, level: 0) }

    /// Pretty-printed serialization (two-space indent, sorted keys).
    public func prettySerialized() -> String {
        String(decoding: serializedBytes(pretty: true), as: UTF8.self)
    }

    func write(to out: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: JSON.formatDouble(d).utf8)
        case .string(let s): JSON.writeString(s, to: &out)
        case .array(let items):
            if items.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                JSON.newline(&out, indent, level + 1)
                item.write(to: &out, indent: indent, level: level + 1)
            }
            JSON.newline(&out, indent, level)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            func member(_ n: Int, _ key: String, _ value: JSON) {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                JSON.newline(&out, indent, level + 1)
                JSON.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                value.write(to: &out, indent: indent, level: level + 1)
            }
            if members.count == 1, let only = members.storage.first {
                member(0, only.key.string, only.value)  // one member needs no sorted copy
            } else {
                for (n, (key, value)) in members.sortedByKey.enumerated() { member(n, key, value) }
            }
            JSON.newline(&out, indent, level)
            out.append(UInt8(ascii: "}"))
        }
    }

    static func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// JSON has no NaN/Infinity; they are written as strings the way proto3 JSON does.
    static func formatDouble(_ d: Double) -> String {
        if d.isNaN { return "\"NaN\"" }
        if d.isInfinite { return d < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        // Negative zero keeps its sign (Firestore stores it; "-0" would parse back as the integer 0).
        if d == 0 && d.sign == .minus { return "-0.0" }
        if d == d.rounded(), abs(d) < 1e15 {
            // Integral doubles print without exponent noise but keep a fraction marker off,
            // matching JavaScript's JSON.stringify (1.0 → 1).
            return String(Int64(d))
        }
        return "\(d)"
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (names, ids, times, field values) need no escape: one copy of the bytes,
        // scanned and copied over the string's own memory (the generic `utf8` walks cost a few
        // hundred instructions per short string, and a query's answer writes thousands).
        let plain = s.withUTF8Bytes { bytes -> Bool in
            for b in bytes where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            return
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSON: CustomStringConvertible {
    /// The compact serialization.
    public var description: String { serialized() }
}
