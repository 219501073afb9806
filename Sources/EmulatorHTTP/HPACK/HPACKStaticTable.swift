/// The static table of RFC 7541 Appendix A: indices 1–61, shared by every connection.
enum HPACKStaticTable {
    /// The entries; `entries[0]` is index 1.
    static let entries: [(name: String, value: String)] = [
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"),
        (":path", "/index.html"), (":scheme", "http"), (":scheme", "https"), (":status", "200"),
        (":status", "204"), (":status", "206"), (":status", "304"), (":status", "400"),
        (":status", "404"), (":status", "500"), ("accept-charset", ""), ("accept-encoding", "gzip, deflate"),
        ("accept-language", ""), ("accept-ranges", ""), ("accept", ""), ("access-control-allow-origin", ""),
        ("age", ""), ("allow", ""), ("authorization", ""), ("cache-control", ""),
        ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""), ("content-length", ""),
        ("content-location", ""), ("content-range", ""), ("content-type", ""), ("cookie", ""),
        ("date", ""), ("etag", ""), ("expect", ""), ("expires", ""),
        ("from", ""), ("host", ""), ("if-match", ""), ("if-modified-since", ""),
        ("if-none-match", ""), ("if-range", ""), ("if-unmodified-since", ""), ("last-modified", ""),
        ("link", ""), ("location", ""), ("max-forwards", ""), ("proxy-authenticate", ""),
        ("proxy-authorization", ""), ("range", ""), ("referer", ""), ("refresh", ""),
        ("retry-after", ""), ("server", ""), ("set-cookie", ""), ("strict-transport-security", ""),
        ("transfer-encoding", ""), ("user-agent", ""), ("vary", ""), ("via", ""),
        ("www-authenticate", ""),
    ]

    /// The number of entries (61): dynamic table indices start after it.
    static let count = 61

    /// The octet counts of each entry's name and value (RFC 7541 §4.1 sizes), by index - 1.
    static let sizes: [(name: Int, value: Int)] = entries.map { ($0.name.utf8.count, $0.value.utf8.count) }

    /// For the encoder: per name, its lowest index and the index of each value the table holds.
    static let byName: [String: (index: Int, values: [String: Int])] = {
        var map: [String: (index: Int, values: [String: Int])] = [:]
        for (i, e) in entries.enumerated() {
            map[e.name, default: (i + 1, [:])].values[e.value] = i + 1
        }
        return map
    }()
}
