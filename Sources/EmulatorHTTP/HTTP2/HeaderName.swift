extension String {
    /// Whether this is the header name `name`, which must be spelled in lowercase ASCII letters,
    /// digits, `-` and `:` (every name the server looks up is a literal of that kind).
    ///
    /// The lengths are compared first: most names differ in length, and `==` on two unequal
    /// strings takes the Unicode comparison's slow path. For equal lengths `==` is exact here: no
    /// other sequence of code points is canonically equivalent to such a name, and two equal
    /// small strings compare by their bits.
    @inline(__always)
    func isHeaderName(_ name: String) -> Bool { utf8.count == name.utf8.count && self == name }
}
