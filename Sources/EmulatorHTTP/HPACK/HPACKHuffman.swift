/// The static Huffman code of RFC 7541 §5.2 / Appendix B: encoding, and decoding with strict
/// checks (EOS inside a string, padding longer than 7 bits or not all ones are errors).
///
/// Decoding runs a finite-state machine four bits at a time, built once from
/// `HPACKHuffmanTable` at first use: a state is an internal node of the code tree (256 of them),
/// and since no code is shorter than 5 bits a nibble completes at most one symbol. Each
/// transition is one table lookup, with no allocation per byte.
enum HPACKHuffman {
    /// One transition: bits 0–7 the next state, 8–15 the symbol completed, bit 16 set when a
    /// symbol was completed, bit 17 set when the EOS symbol was (an error).
    private static let emitsFlag: UInt32 = 1 << 16
    /// See `emitsFlag`.
    private static let eosFlag: UInt32 = 1 << 17

    /// The decoding automaton: `transitions[state << 4 | nibble]`, plus for each state whether
    /// ending there is valid padding (`paddingDepth`: the bits since the last symbol when they
    /// are all ones, else -1).
    private struct Automaton {
        var transitions: [UInt32]
        var paddingDepth: [Int8]
    }

    /// Built from the code table on first use (Swift initializes globals once, thread-safely).
    private static let automaton: Automaton = {
        // The code tree: for an internal node, its two children; a child >= 0 is an internal
        // node, a child < 0 the leaf of symbol -child - 1.
        var children: [[Int]] = [[0, 0]]
        var depth: [Int] = [0]
        var allOnes: [Bool] = [true]
        for (symbol, entry) in HPACKHuffmanTable.codes.enumerated() {
            var node = 0
            for bitIndex in stride(from: Int(entry.length) - 1, through: 0, by: -1) {
                let bit = Int((entry.code >> UInt32(bitIndex)) & 1)
                if bitIndex == 0 {
                    precondition(children[node][bit] == 0, "Huffman table is not a prefix code")  // trap-ok: the constant RFC 7541 table
                    children[node][bit] = -symbol - 1
                } else if children[node][bit] > 0 {
                    node = children[node][bit]
                } else {
                    precondition(children[node][bit] == 0, "Huffman table is not a prefix code")  // trap-ok: the constant RFC 7541 table
                    children.append([0, 0])
                    depth.append(depth[node] + 1)
                    allOnes.append(allOnes[node] && bit == 1)
                    children[node][bit] = children.count - 1
                    node = children.count - 1
                }
            }
        }
        precondition(children.count == 256, "a complete code over 257 symbols has 256 internal nodes")  // trap-ok: the constant RFC 7541 table
        var transitions = [UInt32](repeating: 0, count: 256 * 16)
        for state in 0..<256 {
            for nibble in 0..<16 {
                var node = state
                var result: UInt32 = 0
                for shift in stride(from: 3, through: 0, by: -1) {
                    let child = children[node][(nibble >> shift) & 1]
                    if child < 0 {
                        let symbol = -child - 1
                        if symbol == 256 {
                            result |= eosFlag
                            break
                        }
                        result |= emitsFlag | UInt32(symbol) << 8
                        node = 0
                    } else {
                        node = child
                    }
                }
                transitions[state << 4 | nibble] = result | UInt32(node)
            }
        }
        let paddingDepth = (0..<256).map { allOnes[$0] ? Int8(depth[$0]) : -1 }
        return Automaton(transitions: transitions, paddingDepth: paddingDepth)
    }()

    /// The most octets `length` Huffman-coded octets can decode to: no code is shorter than 5 bits.
    static func maxDecodedCount(_ length: Int) -> Int { length * 8 / 5 + 1 }

    /// Decodes the Huffman-coded octets `bytes[start..<end]` into a String (invalid UTF-8
    /// repaired with U+FFFD), written in place without an intermediate buffer; also returns the
    /// number of decoded octets, which is what the table sizes count.
    static func decodeString(_ bytes: [UInt8], from start: Int, to end: Int) throws(HPACKError) -> (String, Int) {
        var result = 0
        let string = String(unsafeUninitializedCapacity: maxDecodedCount(end - start)) { out in
            result = decode(bytes, from: start, to: end, into: out)
            return max(result, 0)
        }
        if result < 0 { throw error(result) }
        return (string, result)
    }

    /// Decodes the Huffman-coded octets `bytes[start..<end]` into an array of octets.
    static func decodeBytes(_ bytes: [UInt8], from start: Int, to end: Int) throws(HPACKError) -> [UInt8] {
        var result = 0
        let decoded = [UInt8](unsafeUninitializedCapacity: maxDecodedCount(end - start)) { out, count in
            result = decode(bytes, from: start, to: end, into: out)
            count = max(result, 0)
        }
        if result < 0 { throw error(result) }
        return decoded
    }

    /// The error for a negative result of `decode(_:from:to:into:)`.
    private static func error(_ code: Int) -> HPACKError {
        switch code {
        case -1: HPACKError("Huffman string contains the EOS symbol")
        case -2: HPACKError("Huffman string has padding longer than 7 bits")
        default: HPACKError("Huffman string has padding that is not all ones")
        }
    }

    /// The decoding loop: writes the octets of `bytes[start..<end]` to `out` (at least
    /// `maxDecodedCount(end - start)` long, which bounds every write) and returns their count, or
    /// -1 (EOS inside the string), -2 (padding longer than 7 bits), -3 (padding not all ones).
    /// Table indices are below 4096 by construction (state < 256, nibble < 16).
    private static func decode(_ bytes: [UInt8], from start: Int, to end: Int, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        // Bounds from the caller's framing: out of range is a decoding error, never a trap.
        guard start >= 0, start <= end, end <= bytes.count, out.count >= maxDecodedCount(end - start) else { return -1 }
        let automaton = Self.automaton
        return automaton.transitions.withUnsafeBufferPointer { transitions in
            bytes.withUnsafeBufferPointer { input in
                var state: UInt32 = 0
                var n = 0
                for i in start..<end {
                    let byte = UInt32(input[i])
                    var t = transitions[Int(state << 4 | byte >> 4)]
                    if t & (emitsFlag | eosFlag) != 0 {
                        if t & eosFlag != 0 { return -1 }
                        out[n] = UInt8(truncatingIfNeeded: t >> 8)
                        n += 1
                    }
                    t = transitions[Int((t & 0xFF) << 4 | byte & 0xF)]
                    if t & (emitsFlag | eosFlag) != 0 {
                        if t & eosFlag != 0 { return -1 }
                        out[n] = UInt8(truncatingIfNeeded: t >> 8)
                        n += 1
                    }
                    state = t & 0xFF
                }
                let padding = automaton.paddingDepth[Int(state)]
                if padding < 0 { return -3 }
                if padding > 7 { return -2 }
                return n
            }
        }
    }

    /// The number of octets the Huffman coding of `bytes` takes.
    static func encodedCount(_ bytes: some Sequence<UInt8>) -> Int {
        let codes = HPACKHuffmanTable.codes
        var bits = 0
        for b in bytes { bits += Int(codes[Int(b)].length) }
        return (bits + 7) >> 3
    }

    /// Appends the Huffman coding of `bytes`, padded with the most significant bits of EOS (ones).
    static func encode(_ bytes: some Sequence<UInt8>, into out: inout [UInt8]) {
        let codes = HPACKHuffmanTable.codes
        // Bits not yet written are the low `pending` bits of `acc`; higher bits are stale and
        // shift out harmlessly (a code is at most 30 bits, so pending + 30 < 64).
        var acc: UInt64 = 0
        var pending = 0
        for b in bytes {
            let code = codes[Int(b)]
            acc = acc << UInt64(code.length) | UInt64(code.code)
            pending += Int(code.length)
            while pending >= 8 {
                pending -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt64(pending)))
            }
        }
        if pending > 0 {
            out.append(UInt8(truncatingIfNeeded: acc << UInt64(8 - pending)) | UInt8(0xFF >> pending))
        }
    }
}
