/// One collection's document paths in name order (`DocumentName.compareNames`), kept as a list of
/// sorted chunks of at most `chunkLimit` paths.
///
/// Why chunks: a single sorted array costs a move of every later path per insert (for a million
/// documents seeded as `d0, d1, …`, byte order puts each new id among the shorter ones: hundreds
/// of kilobytes moved per document). Here an insert or removal moves at most one chunk, and finding
/// the chunk is a binary search over the chunks' last paths. A value type: copying it (a database
/// snapshot) copies the chunk list, and an edit after that copies one chunk.
struct SortedPaths: Sendable, Sequence {
    /// Paths per chunk at most; a full chunk splits in two.
    static let chunkLimit = 512

    private var chunks: [[String]] = []
    /// The number of paths.
    private(set) var count = 0

    /// An empty list.
    init() {}

    /// True when there are no paths.
    var isEmpty: Bool { count == 0 }

    /// The chunk that holds `path` or would hold it: the first whose last path is not before it
    /// (the last chunk when every path is before it). Nil when empty.
    private func chunkIndex(_ path: String) -> Int? {
        guard !chunks.isEmpty else { return nil }
        var lo = 0, hi = chunks.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            // Chunks are never empty (an emptied chunk is removed).
            if let last = chunks[mid].last, DocumentName.compareNames(last, path) < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The position of `path` in `chunk` or where it would go.
    private static func position(_ chunk: [String], _ path: String) -> Int {
        var lo = 0, hi = chunk.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if DocumentName.compareNames(chunk[mid], path) < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Adds `path` in order (nothing when present).
    mutating func insert(_ path: String) {
        guard let c = chunkIndex(path) else {
            chunks = [[path]]
            count = 1
            return
        }
        let i = Self.position(chunks[c], path)
        if i < chunks[c].count, chunks[c][i].utf8Equals(path) { return }
        chunks[c].insert(path, at: i)
        count += 1
        if chunks[c].count > Self.chunkLimit {
            let half = chunks[c].count / 2
            let upper = Array(chunks[c][half...])
            chunks[c].removeSubrange(half...)
            chunks.insert(upper, at: c + 1)
        }
    }

    /// Removes `path`; false when it was not there.
    @discardableResult
    mutating func remove(_ path: String) -> Bool {
        guard let c = chunkIndex(path) else { return false }
        let i = Self.position(chunks[c], path)
        guard i < chunks[c].count, chunks[c][i].utf8Equals(path) else { return false }
        chunks[c].remove(at: i)
        count -= 1
        if chunks[c].isEmpty { chunks.remove(at: c) }
        return true
    }

    /// Up to `limit` paths after `after` (from the first when nil), in order; O(log n + limit).
    func page(after: String?, limit: Int) -> [String] {
        var out: [String] = []
        guard limit > 0, var c = after.map({ chunkIndex($0) }) ?? (chunks.isEmpty ? nil : 0) else { return out }
        var i = 0
        if let after {
            i = Self.position(chunks[c], after)
            if i < chunks[c].count, chunks[c][i].utf8Equals(after) { i += 1 }
        }
        while c < chunks.count, out.count < limit {
            let chunk = chunks[c]
            while i < chunk.count, out.count < limit {
                out.append(chunk[i])
                i += 1
            }
            c += 1
            i = 0
        }
        return out
    }

    /// Every path, in order.
    var array: [String] {
        var out: [String] = []
        out.reserveCapacity(count)
        for chunk in chunks { out.append(contentsOf: chunk) }
        return out
    }

    /// Iterates the paths in order.
    func makeIterator() -> FlattenSequence<[[String]]>.Iterator { chunks.joined().makeIterator() }
}
