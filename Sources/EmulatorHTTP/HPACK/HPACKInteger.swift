/// HPACK's integer representation (RFC 7541 §5.1): a value in the low N bits of a first octet,
/// continued in 7-bit groups (least significant first) when it does not fit.
enum HPACKInteger {
    /// The most continuation octets accepted. Four would do for every size this server allows
    /// (2^28 > any block); five leaves room for a peer that pads with a redundant group, and
    /// bounds the work and the value (< 2^36, no overflow) for anything longer.
    static let maxContinuationOctets = 5

    /// Decodes an integer whose first octet is `bytes[index]`, using its low `prefixBits` bits
    /// (1...8), and advances `index` past it. Throws when the block ends inside the integer or
    /// it takes more than `maxContinuationOctets` continuation octets.
    @inline(__always)
    static func decode(_ bytes: [UInt8], at index: inout Int, prefixBits: Int) throws(HPACKError) -> Int {
        let mask = (1 << prefixBits) - 1
        var value = Int(bytes[index]) & mask
        index += 1
        if value < mask { return value }
        var shift = 0
        var octets = 0
        while true {
            guard index < bytes.count else { throw HPACKError("header block ends inside an integer") }
            let b = bytes[index]
            index += 1
            octets += 1
            guard octets <= maxContinuationOctets else {
                throw HPACKError("integer takes more than \(maxContinuationOctets) continuation octets")
            }
            value += Int(b & 0x7F) << shift
            if b & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// Appends `value` (≥ 0) with the given prefix width; `firstOctetFlags` are the
    /// representation's pattern bits above the prefix (e.g. 0x80 for an indexed field).
    static func encode(_ value: Int, prefixBits: Int, firstOctetFlags: UInt8, into out: inout [UInt8]) {
        let mask = (1 << prefixBits) - 1
        if value < mask {
            out.append(firstOctetFlags | UInt8(value))
            return
        }
        out.append(firstOctetFlags | UInt8(mask))
        var rest = value - mask
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }
}
