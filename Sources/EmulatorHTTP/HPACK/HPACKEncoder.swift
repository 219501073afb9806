/// Encodes HPACK header blocks (RFC 7541) sent on one HTTP/2 connection.
///
/// A value type owned by the connection (one event-loop thread): it holds the connection's
/// encoding dynamic table, so blocks must be sent in the order they were encoded.
///
/// Choices: a field equal to a static or dynamic entry is sent as an index; a field that
/// repeats from response to response (`:status`, `content-type`, `grpc-status`,
/// `grpc-encoding`, custom metadata…) is a literal with incremental indexing; a field whose
/// value changes every time (`grpc-message`, `content-length`, `date`, see `unindexedNames`) or
/// that would take most of the table is a literal without indexing; a field flagged
/// `neverIndexed` is a never-indexed literal. Names are sent as indices whenever a table has
/// them. Each string is Huffman-coded when that is shorter. The dynamic table is at most
/// `maxOwnTableSize` octets, whatever the peer allows, so a peer cannot make it grow.
public struct HPACKEncoder: Sendable {
    /// The largest dynamic table this encoder uses (also the protocol's initial size).
    public static let maxOwnTableSize = 4096

    /// Names whose values change with every message: indexing them would only evict entries
    /// that are reused.
    static let unindexedNames: Set<String> = [
        "grpc-message", "grpc-status-details-bin", "grpc-timeout", "content-length", "date",
        "etag", "last-modified", "expires", "age", "set-cookie", "cookie", "authorization",
        "proxy-authorization",
    ]

    /// A name and value, the key of an exact dynamic-table match.
    private struct NameValue: Hashable, Sendable {
        var name: String
        var value: String
    }

    /// The dynamic table, mirrored by the peer's decoder.
    private var table: HPACKDynamicTable
    /// For each name + value in the dynamic table, the insertion number of its newest entry
    /// (stale when below `table.oldestInsertion`; pruned now and then).
    private var exact: [NameValue: Int] = [:]
    /// For each name in the dynamic table, the insertion number of its newest entry.
    private var names: [String: Int] = [:]
    /// Size updates owed at the start of the next block: the smallest size since the last block
    /// and the final one (RFC 7541 §4.2).
    private var pendingSizeUpdate: (smallest: Int, final: Int)?
    /// A block whose encoding added nothing to the dynamic table (table references, and literals
    /// without indexing), reusable while the table has had no insertion (indices count from the
    /// newest entry) and no size change: a server sends the same
    /// response headers and trailers call after call, and looking each field up again (hashing
    /// its name and value) was most of a gRPC call's HPACK cost.
    private struct Reusable: Sendable {
        var fields: [HPACKHeaderField]
        var block: [UInt8]
        var insertions: Int
    }

    /// The last two reusable blocks (a unary gRPC answer's headers and its trailers).
    private var reusable: [Reusable] = []
    /// The slot of `reusable` the next one replaces.
    private var nextReusable = 0

    /// When strings are Huffman-coded.
    enum HuffmanPolicy: Sendable {
        /// Never (RFC 7541 C.3 and C.5 do this).
        case never
        /// When strictly shorter: the default.
        case whenShorter
        /// Always, even at equal or greater length (RFC 7541 C.4 and C.6 do this).
        case always
    }

    /// When strings are Huffman-coded (other than `.whenShorter` only in tests reproducing RFC
    /// 7541 Appendix C).
    private let huffman: HuffmanPolicy
    /// Whether every field not in a table is indexed (only in tests reproducing RFC 7541 C.3–C.6).
    private let indexEverything: Bool

    /// An encoder whose dynamic table starts at the protocol's initial 4096 octets.
    public init() {
        self.init(tableSize: Self.maxOwnTableSize)
    }

    /// An encoder whose table starts at `tableSize` without signalling it, with the RFC
    /// examples' choices available: another Huffman policy, or indexing of every new field.
    init(tableSize: Int, huffman: HuffmanPolicy = .whenShorter, indexEverything: Bool = false) {
        table = HPACKDynamicTable(maxSize: tableSize)
        self.huffman = huffman
        self.indexEverything = indexEverything
    }

    /// The dynamic table's current size in octets.
    public var dynamicTableSize: Int { table.size }
    /// The dynamic table's current maximum size.
    public var dynamicTableMaxSize: Int { table.maxSize }
    /// The number of entries in the dynamic table.
    public var dynamicTableCount: Int { table.count }
    /// The dynamic table's entries, newest (index 62) first: for tests and diagnostics.
    var dynamicTableFields: [HPACKHeaderField] { table.fields }
    /// The number of keys in the exact-match lookup map (kept proportional to the table).
    var lookupKeyCount: Int { exact.count }

    /// Called when the peer's SETTINGS_HEADER_TABLE_SIZE arrives: the table shrinks at once if
    /// needed (to at most `maxOwnTableSize`) and the next block starts with a dynamic table size
    /// update (two when the size went down and up again since the last block).
    public mutating func setPeerMaxTableSize(_ size: Int) {
        let newSize = min(max(0, size), Self.maxOwnTableSize)
        table.setMaxSize(newSize)
        pendingSizeUpdate = (min(pendingSizeUpdate?.smallest ?? newSize, newSize), newSize)
        reusable = []  // entries may have been evicted
    }

    /// Encodes one header block. Fields equal to a table entry become indexed fields; fields
    /// that repeat use incremental indexing; values that change every time (and anything with
    /// `neverIndexed`) are literals without indexing (never-indexed when flagged). Each string
    /// is Huffman-coded when that is shorter.
    public mutating func encode(_ fields: [HPACKHeaderField]) -> [UInt8] {
        if pendingSizeUpdate == nil {
            for r in reusable where r.insertions == table.insertions && r.fields == fields { return r.block }
        }
        let insertionsBefore = table.insertions, sizeUpdate = pendingSizeUpdate != nil
        let block = encodeFields(fields)
        if !sizeUpdate && table.insertions == insertionsBefore {
            let r = Reusable(fields: fields, block: block, insertions: insertionsBefore)
            if reusable.count < 2 { reusable.append(r) } else { reusable[nextReusable] = r }
            nextReusable = (nextReusable + 1) % 2
        }
        return block
    }

    /// `encode` without the reuse.
    private mutating func encodeFields(_ fields: [HPACKHeaderField]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fields.count * 16 + 8)
        if let update = pendingSizeUpdate {
            if update.smallest < update.final {
                HPACKInteger.encode(update.smallest, prefixBits: 5, firstOctetFlags: 0x20, into: &out)
            }
            HPACKInteger.encode(update.final, prefixBits: 5, firstOctetFlags: 0x20, into: &out)
            pendingSizeUpdate = nil
        }
        for field in fields {
            let staticName = HPACKStaticTable.byName[field.name]
            if field.neverIndexed {
                literal(field, nameIndex: staticName?.index ?? dynamicNameIndex(field.name), flags: 0x10, prefixBits: 4, into: &out)
                continue
            }
            if let index = staticName?.values[field.value] ?? dynamicIndex(NameValue(name: field.name, value: field.value)) {
                HPACKInteger.encode(index, prefixBits: 7, firstOctetFlags: 0x80, into: &out)
                continue
            }
            let nameIndex = staticName?.index ?? dynamicNameIndex(field.name)
            let nameOctets = field.name.utf8.count, valueOctets = field.value.utf8.count
            if shouldIndex(field, size: nameOctets + valueOctets + HPACKDynamicTable.entryOverhead) {
                literal(field, nameIndex: nameIndex, flags: 0x40, prefixBits: 6, into: &out)
                table.add(name: field.name, value: field.value, nameOctets: nameOctets, valueOctets: valueOctets)
                let id = table.insertions - 1
                exact[NameValue(name: field.name, value: field.value)] = id
                names[field.name] = id
                pruneIfNeeded()
            } else {
                literal(field, nameIndex: nameIndex, flags: 0x00, prefixBits: 4, into: &out)
            }
        }
        return out
    }

    /// Whether a field not found in the tables goes into the dynamic table.
    private func shouldIndex(_ field: HPACKHeaderField, size: Int) -> Bool {
        if indexEverything { return true }
        return !Self.unindexedNames.contains(field.name) && size * 4 <= table.maxSize * 3
    }

    /// The combined index of the newest live dynamic entry equal to `key`.
    private func dynamicIndex(_ key: NameValue) -> Int? {
        guard let id = exact[key], id >= table.oldestInsertion else { return nil }
        return HPACKStaticTable.count + table.insertions - id
    }

    /// The combined index of the newest live dynamic entry named `name`, or 0 (a new name).
    private func dynamicNameIndex(_ name: String) -> Int {
        guard let id = names[name], id >= table.oldestInsertion else { return 0 }
        return HPACKStaticTable.count + table.insertions - id
    }

    /// Drops lookup keys of evicted entries once they outnumber the live ones, so the maps stay
    /// proportional to the table (amortized O(1) per insertion).
    private mutating func pruneIfNeeded() {
        guard exact.count > 2 * table.count + 64 else { return }
        let oldest = table.oldestInsertion
        exact = exact.filter { $0.value >= oldest }
        names = names.filter { $0.value >= oldest }
    }

    /// Appends a literal field: the representation's pattern `flags` with the name index (0: the
    /// name follows as a string) in a `prefixBits` prefix, then the value.
    private func literal(_ field: HPACKHeaderField, nameIndex: Int, flags: UInt8, prefixBits: Int, into out: inout [UInt8]) {
        HPACKInteger.encode(nameIndex, prefixBits: prefixBits, firstOctetFlags: flags, into: &out)
        if nameIndex == 0 { string(field.name, into: &out) }
        string(field.value, into: &out)
    }

    /// Appends a string literal (§5.2), Huffman-coded when that is shorter.
    private func string(_ s: String, into out: inout [UInt8]) {
        let raw = s.utf8.count
        if huffman != .never {
            let coded = HPACKHuffman.encodedCount(s.utf8)
            if coded < raw || huffman == .always {
                HPACKInteger.encode(coded, prefixBits: 7, firstOctetFlags: 0x80, into: &out)
                HPACKHuffman.encode(s.utf8, into: &out)
                return
            }
        }
        HPACKInteger.encode(raw, prefixBits: 7, firstOctetFlags: 0x00, into: &out)
        out.append(contentsOf: s.utf8)
    }
}
