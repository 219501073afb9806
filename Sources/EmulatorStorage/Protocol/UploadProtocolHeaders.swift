/// The header values of the upload and download protocols, parsed strictly (each refuses what it
/// cannot read with a message naming the header). Pure functions over untrusted text (fuzzed).
public enum UploadProtocolHeaders {
    /// A parsed `Content-Range` of a resumable upload request (JSON API).
    public enum ContentRange: Sendable, Equatable {
        /// `bytes first-last/total` (total `*`: not known yet).
        case bytes(first: Int64, last: Int64, total: Int64?)
        /// `bytes */total` (or `*/*`): a status probe, or the last request of an upload whose
        /// final chunk is empty.
        case probe(total: Int64?)
    }

    /// Reads `Content-Range` (`bytes 0-262143/*`, `bytes 262144-524287/1000000`, `bytes */1000000`).
    public static func contentRange(_ text: String) throws(UploadHeaderError) -> ContentRange {
        var t = Substring(text).trimmingSpaces()
        guard t.hasPrefix("bytes") else { throw UploadHeaderError("Content-Range must start with 'bytes': '\(text)'") }
        t = t.dropFirst(5).trimmingSpaces()
        if t.hasPrefix("=") { t = t.dropFirst().trimmingSpaces() }  // some clients write `bytes=`
        let parts = t.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw UploadHeaderError("Content-Range needs '/total' or '/*': '\(text)'") }
        let total: Int64?
        if parts[1] == "*" {
            total = nil
        } else {
            guard let n = number(parts[1]) else { throw UploadHeaderError("Content-Range total is not a number: '\(text)'") }
            total = n
        }
        if parts[0] == "*" { return .probe(total: total) }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = number(bounds[0]), let last = number(bounds[1]), first <= last else {
            throw UploadHeaderError("Content-Range must be 'bytes first-last/total' with first <= last: '\(text)'")
        }
        if let total, last >= total { throw UploadHeaderError("Content-Range ends past its total: '\(text)'") }
        return .bytes(first: first, last: last, total: total)
    }

    /// A byte range asked for by a download (`Range`), resolved against the object size.
    public enum ByteRange: Sendable, Equatable {
        /// Serve bytes `start...end` (inclusive) with 206.
        case partial(start: Int64, end: Int64)
        /// Cannot be satisfied (416 with `Content-Range: bytes */size`).
        case unsatisfiable
        /// Serve everything (no range, several ranges, or a range this server ignores).
        case whole
    }

    /// Reads a `Range` header against an object of `size` bytes: one `bytes=a-b`, `bytes=a-` or
    /// `bytes=-n` range; several ranges or other units are served whole, as Cloud Storage does.
    public static func byteRange(_ text: String?, size: Int64) -> ByteRange {
        guard let text, size > 0 else { return .whole }  // an empty object is served whole (200, no body)
        var t = Substring(text).trimmingSpaces()
        guard t.hasPrefix("bytes=") else { return .whole }
        t = t.dropFirst(6).trimmingSpaces()
        guard !t.contains(",") else { return .whole }
        let bounds = t.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return .whole }
        let a = bounds[0].trimmingSpaces(), b = bounds[1].trimmingSpaces()
        if a.isEmpty {
            guard let n = number(b) else { return .whole }
            if n == 0 { return .unsatisfiable }
            return .partial(start: max(0, size - n), end: size - 1)
        }
        guard let start = number(a) else { return .whole }
        var end = size - 1
        if !b.isEmpty {
            guard let e = number(b), e >= start else { return .whole }
            end = min(e, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .partial(start: start, end: end)
    }

    /// The commands of the Firebase resumable protocol (`X-Goog-Upload-Command`).
    public struct UploadCommands: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Open a session.
        public static let start = UploadCommands(rawValue: 1)
        /// Append the body.
        public static let upload = UploadCommands(rawValue: 2)
        /// Store the object.
        public static let finalize = UploadCommands(rawValue: 4)
        /// Report the bytes received.
        public static let query = UploadCommands(rawValue: 8)
        /// Drop the session.
        public static let cancel = UploadCommands(rawValue: 16)
    }

    /// Reads `X-Goog-Upload-Command` (`start`, `upload`, `upload, finalize`, `finalize`, `query`,
    /// `cancel`): comma-separated, case-insensitive; only `upload` and `finalize` combine.
    public static func uploadCommands(_ text: String) throws(UploadHeaderError) -> UploadCommands {
        var out: UploadCommands = []
        for raw in text.split(separator: ",") {
            switch raw.trimmingSpaces().lowercased() {
            case "start": out.insert(.start)
            case "upload": out.insert(.upload)
            case "finalize": out.insert(.finalize)
            case "query": out.insert(.query)
            case "cancel": out.insert(.cancel)
            case "": continue
            default:
                throw UploadHeaderError("Unknown X-Goog-Upload-Command '\(raw.trimmingSpaces())' (expected start, upload, finalize, query or cancel)")
            }
        }
        guard !out.isEmpty else { throw UploadHeaderError("X-Goog-Upload-Command is empty") }
        guard out.isSubset(of: [.upload, .finalize]) || out.rawValue & (out.rawValue - 1) == 0 else {
            throw UploadHeaderError("X-Goog-Upload-Command '\(text)' combines commands that do not go together (only 'upload, finalize' does)")
        }
        return out
    }

    /// A non-negative decimal of at most 18 digits (so it fits Int64 without overflow).
    public static func number(_ s: Substring) -> Int64? {
        let t = s.trimmingSpaces()
        guard !t.isEmpty, t.utf8.count <= 18, t.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(t)
    }
}

/// A protocol header that could not be read.
public struct UploadHeaderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, quoting the header.
    public var description: String
    /// Creates the error.
    public init(_ description: String) { self.description = description }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
