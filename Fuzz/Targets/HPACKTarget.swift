import EmulatorHTTP

/// The `hpack` target: a sequence of header blocks fed to one `HPACKDecoder`, as one HTTP/2
/// connection would, each decoded list re-encoded by one `HPACKEncoder` and decoded again.
///
/// Input: a configuration octet, then blocks, each a 2-octet big-endian length and that many
/// octets (the last one cut short by the end of the input). The configuration picks the
/// decoder's table limit (bits 0–1: 4096, 256, 64, 0), its header list limit (bits 2–3: 65536,
/// 4096, 512, 100) and a table size the encoder's peer announces first (bits 4–6).
///
/// Properties: the decoder's table never exceeds its current maximum, nor that maximum our
/// limit; a list over the limit comes back empty; and a decoded list, re-encoded, decodes to the
/// same fields (names, values, never-indexed flags) with the re-encoding side's two tables
/// equal. A compression error ends the run, as it ends the connection.
public enum HPACKTarget {
    /// Decoder table limits, by configuration bits 0–1.
    static let tableSizes = [4096, 256, 64, 0]
    /// Decoder header list limits, by configuration bits 2–3.
    static let listLimits = [65536, 4096, 512, 100]
    /// Table sizes announced to the encoder, by configuration bits 4–6 (nil: none).
    static let peerTableSizes: [Int?] = [nil, 0, 33, 64, 256, 1000, 4096, 1 << 20]

    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        _ = try decodeBlocks(data)
    }

    /// Runs the target on `data`: the number of blocks decoded, and the compression error that
    /// ended the run, if one did (seeds must decode without one).
    static func decodeBlocks(_ data: [UInt8]) throws(FuzzViolation) -> (blocks: Int, error: HPACKError?) {
        guard let config = data.first else { return (0, nil) }
        let maxTable = tableSizes[Int(config & 3)]
        var decoder = HPACKDecoder(maxTableSize: maxTable, maxHeaderListSize: listLimits[Int(config >> 2 & 3)])
        var encoder = HPACKEncoder()
        var mirror = HPACKDecoder(maxTableSize: HPACKEncoder.maxOwnTableSize, maxHeaderListSize: Int.max)
        if let size = peerTableSizes[Int(config >> 4 & 7)] { encoder.setPeerMaxTableSize(size) }
        var i = 1
        var n = 0
        while i < data.count {
            let length = Int(data[i]) << 8 | (i + 1 < data.count ? Int(data[i + 1]) : 0)
            let start = min(data.count, i + 2)
            let end = min(data.count, start + length)
            i = end
            let decoded: HPACKDecodedBlock
            do { decoded = try decoder.decode(Array(data[start..<end])) } catch { return (n, error) }
            n += 1
            guard decoder.dynamicTableSize <= decoder.dynamicTableMaxSize, decoder.dynamicTableMaxSize <= maxTable else {
                throw FuzzViolation(
                    .hpack, "block \(n): table size \(decoder.dynamicTableSize), maximum \(decoder.dynamicTableMaxSize), limit \(maxTable)")
            }
            if decoded.listTooLarge {
                guard decoded.fields.isEmpty else { throw FuzzViolation(.hpack, "block \(n): a list too large kept its fields") }
                continue
            }
            let reencoded = encoder.encode(decoded.fields)
            let again: HPACKDecodedBlock
            do { again = try mirror.decode(reencoded) } catch {
                throw FuzzViolation(.hpack, "block \(n): our encoding of \(decoded.fields.count) field(s) does not decode: \(error)")
            }
            guard again.fields == decoded.fields else {
                throw FuzzViolation(.hpack, "block \(n): re-encoding changed the fields \(decoded.fields.prefix(5))")
            }
            guard mirror.dynamicTableSize == encoder.dynamicTableSize, mirror.dynamicTableCount == encoder.dynamicTableCount else {
                throw FuzzViolation(.hpack, "block \(n): encoder table \(encoder.dynamicTableSize) octets, its decoder's \(mirror.dynamicTableSize)")
            }
        }
        return (n, nil)
    }
}
