import EmulatorCore

/// The document paths that hold one value in one field of one collection (an entry of
/// `DatabaseState.equalityIndex`). Most indexed values (ids, titles, timestamps) belong to one
/// document, so one path is stored inline and a set is made only for a second document; for a
/// million documents with a unique field that saves a million small sets.
enum IndexedPaths: Sendable {
    case one(UTF8Key)
    case many(Set<UTF8Key>)

    /// The paths as a set.
    var paths: Set<UTF8Key> {
        switch self {
        case .one(let p): [p]
        case .many(let s): s
        }
    }

    /// The number of paths.
    var count: Int {
        switch self {
        case .one: 1
        case .many(let s): s.count
        }
    }

    /// Adds `path`.
    mutating func insert(_ path: UTF8Key) {
        switch self {
        case .one(let p):
            if p != path { self = .many([p, path]) }
        case .many(var s):
            self = .many([])  // drops this enum's reference, so `s` is edited in place, not copied
            s.insert(path)
            self = .many(s)
        }
    }

    /// Removes `path`; false when no path is left (the caller drops the entry).
    mutating func remove(_ path: UTF8Key) -> Bool {
        switch self {
        case .one(let p):
            return p != path
        case .many(var s):
            self = .many([])  // as in `insert`: edit in place
            s.remove(path)
            if s.count == 1, let last = s.first {
                self = .one(last)
            } else {
                self = .many(s)
            }
            return !s.isEmpty
        }
    }
}

extension Dictionary where Key == Int, Value == IndexedPaths {
    /// Adds `path` to the entry for `key`, making it when missing.
    mutating func insertPath(_ path: UTF8Key, forKey key: Int) {
        if let i = index(forKey: key) {
            values[i].insert(path)
        } else {
            self[key] = .one(path)
        }
    }

    /// Removes `path` from the entry for `key`, dropping the entry when it empties.
    mutating func removePath(_ path: UTF8Key, forKey key: Int) {
        guard let i = index(forKey: key) else { return }
        if !values[i].remove(path) { remove(at: i) }
    }
}
