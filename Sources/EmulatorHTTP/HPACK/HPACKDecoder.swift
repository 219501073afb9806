/// Decodes HPACK header blocks (RFC 7541) received on one HTTP/2 connection.
///
/// A value type owned by the connection (one event-loop thread): it holds the connection's
/// decoding dynamic table, which every block updates, so blocks must be decoded in the order
/// they arrive, each exactly once. Any error is a connection error (COMPRESSION_ERROR); the
/// decoder must not be used after one.
///
/// Costs are linear in the block's length: each octet is read once, strings are built once
/// (directly from the block; Huffman strings decoded straight into the String's storage), and
/// names and values from the tables are shared, not copied. Memory is bounded by `maxTableSize` plus, per block,
/// `maxHeaderListSize` (an "HPACK bomb" repeating a large table entry only sets `listTooLarge`).
public struct HPACKDecoder: Sendable {
    /// Our SETTINGS_HEADER_TABLE_SIZE: the largest dynamic table a size update may ask for.
    public let maxTableSize: Int
    /// Our SETTINGS_MAX_HEADER_LIST_SIZE: the largest decoded list (name + value + 32 octets per
    /// field) whose fields are returned.
    public let maxHeaderListSize: Int
    /// The dynamic table.
    private var table: HPACKDynamicTable

    /// A decoder whose dynamic table starts at `maxTableSize` (RFC 9113 §6.5.2: 4096 until our
    /// SETTINGS are acknowledged, so advertise a different value only with care).
    public init(maxTableSize: Int = 4096, maxHeaderListSize: Int = 65536) {
        self.maxTableSize = max(0, maxTableSize)
        self.maxHeaderListSize = max(0, maxHeaderListSize)
        table = HPACKDynamicTable(maxSize: self.maxTableSize)
    }

    /// The dynamic table's current size in octets (entries' name + value + 32).
    public var dynamicTableSize: Int { table.size }
    /// The dynamic table's current maximum size: `maxTableSize` or what the peer's last size
    /// update set.
    public var dynamicTableMaxSize: Int { table.maxSize }
    /// The number of entries in the dynamic table.
    public var dynamicTableCount: Int { table.count }
    /// The dynamic table's entries, newest (index 62) first: for tests and diagnostics.
    var dynamicTableFields: [HPACKHeaderField] { table.fields }

    /// Decodes one complete header block (HEADERS + CONTINUATION payloads concatenated). Throws
    /// for any compression error (the connection then ends with COMPRESSION_ERROR). When the
    /// decoded list exceeds `maxHeaderListSize` the block is still fully decoded (so the dynamic
    /// table stays in sync with the peer's encoder) but the fields are dropped and
    /// `listTooLarge` is true.
    public mutating func decode(_ block: [UInt8]) throws(HPACKError) -> HPACKDecodedBlock {
        var fields: [HPACKHeaderField] = []
        fields.reserveCapacity(12)
        var listSize = 0
        var tooLarge = false
        var sawField = false
        var i = 0
        while i < block.count {
            let first = block[i]
            let name: String, value: String, nameOctets: Int, valueOctets: Int
            var neverIndexed = false
            if first & 0x80 != 0 {
                // Indexed field (§6.1): 1xxxxxxx.
                let index = try HPACKInteger.decode(block, at: &i, prefixBits: 7)
                if index == 0 { throw HPACKError("indexed header field with index 0") }
                if index <= HPACKStaticTable.count {
                    let e = HPACKStaticTable.entries[index - 1]
                    let sizes = HPACKStaticTable.sizes[index - 1]
                    (name, value, nameOctets, valueOctets) = (e.name, e.value, sizes.name, sizes.value)
                } else {
                    let e = try dynamicEntry(index)
                    (name, value, nameOctets, valueOctets) = (e.name, e.value, e.nameOctets, e.valueOctets)
                }
            } else if first & 0x20 != 0 && first & 0x40 == 0 {
                // Dynamic table size update (§6.3): 001xxxxx, only before the first field (§4.2).
                if sawField { throw HPACKError("dynamic table size update after a header field") }
                let size = try HPACKInteger.decode(block, at: &i, prefixBits: 5)
                if size > maxTableSize {
                    throw HPACKError("dynamic table size update to \(size) exceeds the limit \(maxTableSize)")
                }
                table.setMaxSize(size)
                continue
            } else {
                // Literals (§6.2): 01xxxxxx with incremental indexing, 0000xxxx without indexing,
                // 0001xxxx never indexed. Once the list is too large, raw strings the table does not
                // need are skipped unbuilt; Huffman strings are still decoded (their errors count).
                let indexing = first & 0x40 != 0
                neverIndexed = !indexing && first & 0x10 != 0
                let build = indexing || !tooLarge
                let nameIndex = try HPACKInteger.decode(block, at: &i, prefixBits: indexing ? 6 : 4)
                if nameIndex == 0 {
                    (name, nameOctets) = try readString(block, at: &i, build: build)
                } else if nameIndex <= HPACKStaticTable.count {
                    name = HPACKStaticTable.entries[nameIndex - 1].name
                    nameOctets = HPACKStaticTable.sizes[nameIndex - 1].name
                } else {
                    let e = try dynamicEntry(nameIndex)
                    (name, nameOctets) = (e.name, e.nameOctets)
                }
                (value, valueOctets) = try readString(block, at: &i, build: build)
                if indexing {
                    table.add(name: name, value: value, nameOctets: nameOctets, valueOctets: valueOctets)
                }
            }
            sawField = true
            listSize += nameOctets + valueOctets + HPACKDynamicTable.entryOverhead
            if tooLarge { continue }
            if listSize > maxHeaderListSize {
                tooLarge = true
                fields = []
            } else {
                fields.append(HPACKHeaderField(name: name, value: value, neverIndexed: neverIndexed))
            }
        }
        return HPACKDecodedBlock(fields: fields, listTooLarge: tooLarge)
    }

    /// The dynamic table entry at combined `index` (> 61), or an error naming the index.
    private func dynamicEntry(_ index: Int) throws(HPACKError) -> HPACKDynamicTable.Entry {
        let i = index - HPACKStaticTable.count - 1
        guard i < table.count else {
            throw HPACKError("index \(index) is beyond the static and dynamic tables (\(HPACKStaticTable.count + table.count) entries)")
        }
        return table[i]
    }

    /// Reads a string literal (§5.2) at `i`: its value and its octet count after Huffman
    /// decoding. With `build` false a raw string is only skipped (its value is empty); a Huffman
    /// string is decoded all the same, since its errors and decoded length count.
    private func readString(_ block: [UInt8], at i: inout Int, build: Bool) throws(HPACKError) -> (String, Int) {
        guard i < block.count else { throw HPACKError("header block ends before a string literal") }
        let huffman = block[i] & 0x80 != 0
        let length = try HPACKInteger.decode(block, at: &i, prefixBits: 7)
        guard length <= block.count - i else {
            throw HPACKError("string literal of \(length) octets runs past the end of the header block (\(block.count - i) left)")
        }
        let start = i
        i += length
        if !huffman {
            return (build ? String(decoding: block[start..<i], as: UTF8.self) : "", length)
        }
        return try HPACKHuffman.decodeString(block, from: start, to: i)
    }
}
