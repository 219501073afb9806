extension StringProtocol {
    /// The text without leading and trailing characters from `set` (e.g. `" \t"`).
    public func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }

    /// The text without leading and trailing Unicode scalars for which `isTrimmed` holds
    /// (Foundation's `trimmingCharacters(in:)`, which needs the full Foundation).
    public func trimmingScalars(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let f = scalars.first, isTrimmed(f) { scalars = scalars.dropFirst() }
        while let l = scalars.last, isTrimmed(l) { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}

/// Lenient decoding of `application/x-www-form-urlencoded` components, as browsers and SDKs send
/// them: `+` is a space, `%XX` escapes are decoded, a malformed escape is kept as text.
public enum FormDecoding {
    /// Decodes one component.
    public static func component(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let c = it.first {
            it = it.dropFirst()
            if c == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if c == UInt8(ascii: "%"), it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(c)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
