import EmulatorCore

/// Small typed readers over a request body, with Identity Toolkit error names.
struct Body {
    /// The raw fields.
    let o: UTF8Dictionary<JSON>

    /// Wraps a decoded body.
    init(_ o: UTF8Dictionary<JSON>) { self.o = o }

    /// A string field; numbers and booleans are accepted as their text (SDKs vary).
    func string(_ k: String) -> String? {
        switch o[k] {
        case .string(let s)?: return s
        case .int(let i)?: return String(i)
        case .bool(let b)?: return String(b)
        default: return nil
        }
    }

    /// A non-empty string field.
    func nonEmpty(_ k: String) -> String? { string(k).flatMap { $0.isEmpty ? nil : $0 } }

    /// A boolean field (also "true"/"false").
    func bool(_ k: String) -> Bool? {
        switch o[k] {
        case .bool(let b)?: return b
        case .string("true")?: return true
        case .string("false")?: return false
        default: return nil
        }
    }

    /// An integer field (also numeric strings, as the Node Admin SDK sends them).
    func int(_ k: String) -> Int64? {
        if let i = o[k]?.intValue { return i }
        if let s = o[k]?.stringValue { return Int64(s) }
        return nil
    }

    /// A list of strings (a single string counts as a one-element list).
    func strings(_ k: String) -> [String] {
        switch o[k] {
        case .array(let a)?: return a.compactMap(\.stringValue)
        case .string(let s)?: return [s]
        default: return []
        }
    }
}
