import EmulatorCore

/// The status route's JSON body, serialized once per state and reused: what it reports changes
/// only when the service directory or a functions codebase's status changes (each counts its
/// changes), except the uptime, which is spliced in per request. Serializing the body was the
/// largest single cost of a status request (callgrind: about a third of its instructions).
/// The entry is behind a `Mutex`.
final class StatusBodyCache: Sendable {
    /// What the cached body was built from.
    struct Key: Equatable {
        /// `ServiceDirectory.version`.
        var directory: UInt64
        /// `FunctionsHost.statusVersion`.
        var functions: UInt64
    }

    private struct Entry {
        var key: Key
        var prefix: [UInt8]
        var suffix: [UInt8]
    }

    /// Stands for the uptime while the body is serialized (no real uptime is this number).
    static let placeholder = Int64.min

    private let entry = Mutex<Entry?>(nil)

    /// Creates an empty cache.
    init() {}

    /// The body for `uptime`: the cached bytes around it when `key` is current, else `build`'s
    /// document (given `placeholder` as the uptime) serialized and cached. The bytes equal
    /// `build(uptime).serializedBytes()`: the integer is written the same way either way.
    func body(key: Key, uptime: Int64, build: (Int64) -> JSON) -> [UInt8] {
        if let e = entry.withLock({ $0 }), e.key == key { return Self.splice(e, uptime) }
        let bytes = build(Self.placeholder).serializedBytes()
        // With its key: a string holding the same digits cannot match (its quotes are escaped).
        let marker = Array("\"uptimeMs\":\(Self.placeholder)".utf8)
        guard let at = Self.find(marker, in: bytes) else { return build(uptime).serializedBytes() }
        let digits = at + marker.count - String(Self.placeholder).utf8.count
        let e = Entry(key: key, prefix: Array(bytes[..<digits]), suffix: Array(bytes[(at + marker.count)...]))
        entry.withLock { $0 = e }
        return Self.splice(e, uptime)
    }

    private static func splice(_ e: Entry, _ uptime: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(e.prefix.count + e.suffix.count + 20)
        out.append(contentsOf: e.prefix)
        out.append(contentsOf: String(uptime).utf8)
        out.append(contentsOf: e.suffix)
        return out
    }

    /// The first index of `needle` in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }
}
