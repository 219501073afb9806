import EmulatorCore

/// What to list in a bucket (objects.list, the Firebase API's list).
public struct StorageListQuery: Sendable, Equatable {
    /// Only names starting with this.
    public var prefix = ""
    /// Groups names that continue past `prefix` with this into `prefixes` (usually `/`).
    public var delimiter: String?
    /// Where the previous page ended (`nextPageToken`).
    public var pageToken: String?
    /// Most entries (items and prefixes together) per page, 1...1000.
    public var maxResults = 1000
    /// Only names at or after this.
    public var startOffset: String?
    /// Only names before this.
    public var endOffset: String?
    /// Also list objects whose name ends in the delimiter right after a listed prefix.
    public var includeTrailingDelimiter = false

    /// Everything.
    public init() {}
}

/// One page of a listing.
public struct StorageListPage: Sendable {
    /// Objects, by name.
    public var items: [StorageObject]
    /// Common prefixes (each ends with the delimiter).
    public var prefixes: [String]
    /// Where the next page starts, when there is one.
    public var nextPageToken: String?
}

/// Lists one bucket's objects in name order (UTF-8 byte order, as Cloud Storage does).
enum StorageLister {
    /// One page of `objects` under `query`.
    static func page(_ objects: [String: StorageObject], _ query: StorageListQuery) throws -> StorageListPage {
        let after = try query.pageToken.map(decodeToken)
        var names = objects.keys.filter { $0.hasPrefix(query.prefix) }
        if let s = query.startOffset { names = names.filter { !$0.utf8.lexicographicallyPrecedes(s.utf8) } }
        if let e = query.endOffset { names = names.filter { $0.utf8.lexicographicallyPrecedes(e.utf8) } }
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var items: [StorageObject] = []
        var prefixes: [String] = []
        var count = 0
        var last: String?
        let limit = max(1, min(query.maxResults, 1000))
        for name in names {
            if let after, !after.utf8.lexicographicallyPrecedes(name.utf8) { continue }
            var entry = name
            var isPrefix = false
            if let d = query.delimiter, !d.isEmpty {
                let rest = name.dropFirst(query.prefix.count)
                if let r = rest.firstRange(of: d) {
                    entry = query.prefix + rest[..<r.upperBound]
                    isPrefix = true
                }
            }
            if isPrefix {
                // Every name under a listed prefix is skipped: resume after the whole prefix.
                if prefixes.last == entry { continue }
                if count == limit { return StorageListPage(items: items, prefixes: prefixes, nextPageToken: last.map(encodeToken)) }
                prefixes.append(entry)
                last = entry + "\u{10FFFF}"
                count += 1
                if query.includeTrailingDelimiter, name == entry, let o = objects[name] { items.append(o) }
            } else {
                if count == limit { return StorageListPage(items: items, prefixes: prefixes, nextPageToken: last.map(encodeToken)) }
                if let o = objects[name] { items.append(o) }
                last = name
                count += 1
            }
        }
        return StorageListPage(items: items, prefixes: prefixes, nextPageToken: nil)
    }

    /// A page token: base64url of the last listed name (a listed prefix ends with U+10FFFF, so
    /// every name under it sorts before the token).
    static func encodeToken(_ last: String) -> String { Base64.urlEncode(Array(last.utf8)) }

    static func decodeToken(_ token: String) throws -> String {
        var t = token.replacing("-", with: "+").replacing("_", with: "/")
        while t.utf8.count % 4 != 0 { t += "=" }
        guard let bytes = Base64.decode(t), let s = String(validating: bytes, as: UTF8.self) else {
            throw StorageErrors.invalid("Invalid pageToken '\(token)'.")
        }
        return s
    }
}
