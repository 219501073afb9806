import Foundation

/// A JSON value as the emulator's REST and control-plane APIs speak it. Integers and doubles are
/// kept apart (Firestore's `integerValue` and `doubleValue` differ), object keys keep no order.
/// Literals build it: `["title": "milk", "done": false, "count": 3]`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object (nil otherwise).
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The element at `index` of an array (nil otherwise or when out of range).
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    /// The integer, if this is one (or a double with an integral value).
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }
    /// The number as a double, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
    /// True for `null`.
    public var isNull: Bool { self == .null }

    /// Parses JSON text (integers stay integers; nesting deeper than 512 levels is refused).
    public static func parse(_ data: Data) throws(FirebaseEmulatorError) -> JSONValue {
        var p = JSONTextParser(bytes: Array(data))
        guard let v = p.document() else {
            throw .decoding("the response is not JSON (\(p.problem)): \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        return v
    }

    /// Parses JSON text from a string.
    public static func parse(_ text: String) throws(FirebaseEmulatorError) -> JSONValue { try parse(Data(text.utf8)) }

    /// Compact JSON text with sorted keys.
    public var serialized: String {
        var out = ""
        write(into: &out)
        return out
    }

    /// The JSON text as bytes.
    public var data: Data { Data(serialized.utf8) }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite { out += d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) + ".0" : String(d) } else { out += "null" }
        case .string(let s): Self.quote(s, into: &out)
        case .array(let a):
            out += "["
            for (i, x) in a.enumerated() {
                if i > 0 { out += "," }
                x.write(into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                Self.quote(k, into: &out)
                out += ":"
                o[k]?.write(into: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal (a later duplicate key wins).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, b in b }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The JSON text.
    public var description: String { serialized }
}
