/// A streaming parser of MIME multipart bodies (`multipart/related` uploads of the Firebase and
/// JSON APIs, `multipart/form-data` POST-policy uploads): fed the body in any chunking, it reports
/// each part's headers and then its content in pieces, holding at most a delimiter's length of
/// content back, so a part of any size passes without being held in memory. Pure and
/// deterministic (fuzzed: the same events however the input is split).
public struct MultipartStreamParser: Sendable {
    /// What the parser found.
    public enum Event: Sendable, Equatable {
        /// A part begins, with its header fields (names as sent).
        case partStart([MultipartHeader])
        /// A piece of the current part's content.
        case content([UInt8])
        /// The current part ended.
        case partEnd
        /// The closing delimiter: the body is complete (anything after it is ignored).
        case end
    }

    private enum Phase: Sendable {
        /// Before the first delimiter (a preamble is allowed and ignored).
        case preamble
        /// Right after a delimiter: `--` ends the body, otherwise spaces and CRLF start a part.
        case afterDelimiter
        /// In a part's header section.
        case headers
        /// In a part's content.
        case content
        /// After the closing delimiter.
        case done
    }

    /// Most bytes of one part's header section.
    public static let maxHeaderBytes = 16 * 1024
    /// Most parts in one body.
    public let maxParts: Int

    private let dashBoundary: [UInt8]  // "--" + boundary
    private let delimiter: [UInt8]  // CRLF + "--" + boundary
    private var buffer: [UInt8] = []
    private var phase = Phase.preamble
    private var parts = 0
    /// Preamble bytes were dropped: the body did not open with the delimiter.
    private var skippedPreamble = false

    /// A parser for `boundary` (from the Content-Type's `boundary=`); `maxParts` bounds the parts.
    public init(boundary: String, maxParts: Int = 64) throws(MultipartError) {
        let b = Array(boundary.utf8)
        guard !b.isEmpty, b.count <= 200, b.allSatisfy({ $0 > 32 && $0 < 127 || $0 == 32 }) else {
            throw MultipartError("The multipart boundary must be 1-200 printable ASCII characters.")
        }
        dashBoundary = Array("--".utf8) + b
        delimiter = [13, 10] + dashBoundary
        self.maxParts = maxParts
    }

    /// The boundary parameter of a `multipart/...` Content-Type, unquoted; nil when absent.
    public static func boundary(fromContentType value: String) -> String? {
        for param in value.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingSpaces().lowercased() == "boundary" else { continue }
            var v = kv[1].trimmingSpaces()
            if v.count >= 2, v.first == "\"", v.last == "\"" { v = v.dropFirst().dropLast() }
            return v.isEmpty ? nil : String(v)
        }
        return nil
    }

    /// True once the closing delimiter was seen.
    public var isComplete: Bool { if case .done = phase { return true } else { return false } }

    /// Adds bytes and returns the events they complete.
    public mutating func feed(_ bytes: [UInt8]) throws(MultipartError) -> [Event] {
        if case .done = phase { return [] }
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        var start = 0
        defer { if start > 0 { buffer.removeSubrange(0..<start) } }
        loop: while true {
            switch phase {
            case .preamble:
                // The first delimiter may open the body without a CRLF before it (only at the
                // very start: inside a preamble a delimiter needs its CRLF).
                if !skippedPreamble, start == 0, buffer.count >= dashBoundary.count, matches(dashBoundary, at: 0) {
                    start += dashBoundary.count
                    phase = .afterDelimiter
                    continue
                }
                guard let i = find(delimiter, from: start) else {
                    // Keep what could still begin the delimiter (or the opening one).
                    let keep = max(start, buffer.count - delimiter.count + 1)
                    if keep > 0 && buffer.count >= dashBoundary.count { skippedPreamble = true }
                    if skippedPreamble { start = keep }
                    break loop
                }
                start = i + delimiter.count
                skippedPreamble = true
                phase = .afterDelimiter
            case .afterDelimiter:
                guard buffer.count - start >= 2 else { break loop }
                if buffer[start] == 45 && buffer[start + 1] == 45 {  // "--": the closing delimiter
                    start = buffer.count
                    phase = .done
                    events.append(.end)
                    break loop
                }
                // Transport padding (spaces, tabs) may precede the CRLF.
                var i = start
                while i < buffer.count, buffer[i] == 32 || buffer[i] == 9 { i += 1 }
                guard i + 1 < buffer.count else {
                    if i - start > 256 { throw MultipartError("Too much padding after a multipart delimiter.") }
                    break loop
                }
                guard buffer[i] == 13, buffer[i + 1] == 10 else { throw MultipartError("A multipart delimiter must end with CRLF or '--'.") }
                start = i + 2
                parts += 1
                guard parts <= maxParts else { throw MultipartError("The multipart body has more than \(maxParts) parts.") }
                phase = .headers
            case .headers:
                // An empty header section is a CRLF right away.
                if buffer.count - start >= 2, buffer[start] == 13, buffer[start + 1] == 10 {
                    start += 2
                    events.append(.partStart([]))
                    phase = .content
                    continue
                }
                guard let end = find([13, 10, 13, 10], from: start) else {
                    if buffer.count - start > Self.maxHeaderBytes {
                        throw MultipartError("A multipart part's headers exceed \(Self.maxHeaderBytes) bytes.")
                    }
                    break loop
                }
                guard end - start <= Self.maxHeaderBytes else {
                    throw MultipartError("A multipart part's headers exceed \(Self.maxHeaderBytes) bytes.")
                }
                events.append(.partStart(try Self.parseHeaders(buffer[start..<end])))
                start = end + 4
                phase = .content
            case .content:
                if let i = find(delimiter, from: start) {
                    if i > start { events.append(.content(Array(buffer[start..<i]))) }
                    events.append(.partEnd)
                    start = i + delimiter.count
                    phase = .afterDelimiter
                    continue
                }
                // Everything but a possible beginning of the delimiter is content.
                let safe = buffer.count - (delimiter.count - 1)
                if safe > start {
                    events.append(.content(Array(buffer[start..<safe])))
                    start = safe
                }
                break loop
            case .done:
                start = buffer.count
                break loop
            }
        }
        return events
    }

    /// The input ended: an error unless the closing delimiter was seen.
    public func finish() throws(MultipartError) {
        guard isComplete else { throw MultipartError("The multipart body ended before its closing delimiter.") }
    }

    private func matches(_ pattern: [UInt8], at i: Int) -> Bool {
        guard i + pattern.count <= buffer.count else { return false }
        for k in 0..<pattern.count where buffer[i + k] != pattern[k] { return false }
        return true
    }

    /// The first occurrence of `pattern` at or after `from` (the first byte is found with a
    /// plain scan; candidates are compared in full).
    private func find(_ pattern: [UInt8], from: Int) -> Int? {
        guard let first = pattern.first, buffer.count - from >= pattern.count else { return nil }
        var i = from
        let last = buffer.count - pattern.count
        while i <= last {
            if buffer[i] == first && matches(pattern, at: i) { return i }
            i += 1
        }
        return nil
    }

    /// `Name: value` lines (CRLF separated; folded lines are refused).
    static func parseHeaders(_ bytes: ArraySlice<UInt8>) throws(MultipartError) -> [MultipartHeader] {
        var out: [MultipartHeader] = []
        var lineStart = bytes.startIndex
        var i = bytes.startIndex
        func line(_ l: ArraySlice<UInt8>) throws(MultipartError) {
            guard let colon = l.firstIndex(of: 58), colon > l.startIndex else { throw MultipartError("A multipart header line has no name.") }
            let name = String(decoding: l[l.startIndex..<colon], as: UTF8.self)
            guard !name.contains(" ") && !name.contains("\t") else { throw MultipartError("A multipart header name contains a space.") }
            let value = String(decoding: l[(colon + 1)...], as: UTF8.self)
            out.append(MultipartHeader(name: name, value: String(Substring(value).trimmingSpaces())))
        }
        while i < bytes.endIndex {
            if bytes[i] == 13, i + 1 < bytes.endIndex, bytes[i + 1] == 10 {
                try line(bytes[lineStart..<i])
                i += 2
                lineStart = i
                continue
            }
            i += 1
        }
        if lineStart < bytes.endIndex { try line(bytes[lineStart..<bytes.endIndex]) }
        return out
    }
}

/// One header field of a multipart part.
public struct MultipartHeader: Sendable, Equatable {
    /// The name as sent.
    public var name: String
    /// The value, trimmed.
    public var value: String
}

extension Array where Element == MultipartHeader {
    /// The first value of `name` (case-insensitive).
    public func value(_ name: String) -> String? {
        let n = name.lowercased()
        return first { $0.name.lowercased() == n }?.value
    }
}

/// A multipart body that cannot be parsed.
public struct MultipartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public var description: String
    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
