import EmulatorStorage

/// The `storage` target: the upload protocol parsers. The input's first line is a multipart
/// boundary and the rest a multipart body, parsed whole and in input-derived pieces: both must
/// give the same parts (content merged) and the same verdict. Every line is also read as a
/// resumable upload's `Content-Range`, a download's `Range` (against sizes from the input) and an
/// `X-Goog-Upload-Command`, whose results must be consistent with what they claim.
public enum StorageTarget {
    /// Runs the target on `data`.
    public static func run(_ data: [UInt8]) throws(FuzzViolation) {
        let newline = data.firstIndex(of: 10) ?? data.count
        let boundary = String(decoding: data[..<newline], as: UTF8.self)
        let body = newline < data.count ? Array(data[(newline + 1)...]) : []
        let whole = parts(boundary, [body])
        var pieces: [[UInt8]] = []
        var i = 0
        while i < body.count {
            let n = 1 + Int(body[i] % 61)
            pieces.append(Array(body[i..<min(body.count, i + n)]))
            i += n
        }
        let split = parts(boundary, pieces)
        guard whole == split else {
            throw FuzzViolation(.storage, "multipart parse depends on the split: whole \(whole.suffix(3)) vs pieces \(split.suffix(3))")
        }
        let text = String(decoding: data, as: UTF8.self)
        for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(64).enumerated() {
            try headers(String(line), size: Int64(k) * 977 + Int64(data.count))
        }
    }

    /// The events of a multipart body fed as `pieces`, content merged, ending with `complete`; or
    /// just `error`.
    static func parts(_ boundary: String, _ pieces: [[UInt8]]) -> [String] {
        guard var parser = try? MultipartStreamParser(boundary: boundary, maxParts: 8) else { return ["bad boundary"] }
        var out: [String] = []
        var content: [UInt8] = []
        do {
            for piece in pieces {
                for e in try parser.feed(piece) {
                    switch e {
                    case .partStart(let h): out.append("part " + h.map { "\($0.name):\($0.value)" }.joined(separator: "|"))
                    case .content(let c): content += c
                    case .partEnd:
                        out.append("content \(content.count) \(content.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) })")
                        content = []
                    case .end: out.append("end")
                    }
                }
            }
            try parser.finish()
            out.append("complete")
        } catch {
            return ["error"]  // the events of the failing piece are not returned: compare the verdict only
        }
        return out
    }

    /// Each header parser on one line.
    static func headers(_ line: String, size: Int64) throws(FuzzViolation) {
        if let r = try? UploadProtocolHeaders.contentRange(line), case .bytes(let first, let last, let total) = r {
            guard first >= 0, first <= last, total.map({ last < $0 }) ?? true else {
                throw FuzzViolation(.storage, "Content-Range '\(line.prefix(80))' parsed to an impossible range")
            }
        }
        for s in [Int64(0), 1, size] {
            if case .partial(let start, let end) = UploadProtocolHeaders.byteRange(line, size: s) {
                guard start >= 0, start <= end, end < s else {
                    throw FuzzViolation(.storage, "Range '\(line.prefix(80))' on \(s) bytes gave \(start)-\(end)")
                }
            }
        }
        if let c = try? UploadProtocolHeaders.uploadCommands(line) {
            guard !c.isEmpty, c.isSubset(of: [.upload, .finalize]) || c.rawValue & (c.rawValue - 1) == 0 else {
                throw FuzzViolation(.storage, "X-Goog-Upload-Command '\(line.prefix(80))' gave an impossible set")
            }
        }
    }
}
