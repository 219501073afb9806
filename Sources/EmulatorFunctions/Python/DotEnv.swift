import EmulatorCore

/// The `.env` files of a functions codebase, read as the Firebase CLI reads them: `KEY=VALUE` per
/// line, `#` comments, values unquoted (trimmed, ending at `#`), single-quoted (literal) or
/// double-quoted (may span lines; `\n`, `\r`, `\t`, `\v`, `\\`, `\"`, `\'` unescaped). Keys are
/// upper-case POSIX names that are not reserved for the runtime. Pure functions.
public enum DotEnv {
    /// Keys the runtime sets itself (the CLI refuses them in `.env` files).
    public static let reservedKeys: Set<String> = [
        "FIREBASE_CONFIG", "CLOUD_RUNTIME_CONFIG", "EVENTARC_CLOUD_EVENT_SOURCE", "ENTRY_POINT", "GCP_PROJECT", "GCLOUD_PROJECT",
        "GOOGLE_CLOUD_PROJECT", "FUNCTION_TRIGGER_TYPE", "FUNCTION_NAME", "FUNCTION_MEMORY_MB", "FUNCTION_TIMEOUT_SEC",
        "FUNCTION_IDENTITY", "FUNCTION_REGION", "FUNCTION_TARGET", "FUNCTION_SIGNATURE_TYPE", "K_SERVICE", "K_REVISION", "PORT",
        "K_CONFIGURATION",
    ]
    /// Prefixes reserved for the platform.
    public static let reservedPrefixes = ["X_GOOGLE_", "FIREBASE_", "EXT_"]

    /// Parses one file's text. Throws `INVALID_ARGUMENT` naming the first bad line or key.
    /// Works on Unicode scalars, not characters: a combining mark after `\n` must not hide the escape.
    public static func parse(_ text: String) throws -> [String: String] {
        var out: [String: String] = [:]
        let chars = Array(text.replacingCRLF().unicodeScalars)
        var i = 0
        var line = 1
        func fail(_ why: String) -> HttpsError { HttpsError(.invalidArgument, "line \(line): \(why)") }
        func isKeyChar(_ c: Unicode.Scalar) -> Bool { c.isASCIILetter || ("0"..."9").contains(c) || c == "_" }
        while i < chars.count {
            // Skip blank space and comment lines.
            while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 }
            if i == chars.count { break }
            if chars[i] == "\n" {
                i += 1
                line += 1
                continue
            }
            if chars[i] == "#" {
                while i < chars.count, chars[i] != "\n" { i += 1 }
                continue
            }
            var key = ""
            while i < chars.count, isKeyChar(chars[i]) {
                key.unicodeScalars.append(chars[i])
                i += 1
            }
            if key == "export" && i < chars.count && chars[i] == " " { throw fail("'export' is not supported; write KEY=VALUE") }
            guard !key.isEmpty else { throw fail("expected KEY=VALUE") }
            while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 }
            guard i < chars.count, chars[i] == "=" else { throw fail("expected '=' after \(key)") }
            i += 1
            while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 }
            var value = String.UnicodeScalarView()
            let quoted = i < chars.count && (chars[i] == "\"" || chars[i] == "'")
            if quoted {
                let quote = chars[i]
                i += 1
                var closed = false
                while i < chars.count {
                    let c = chars[i]
                    if c == quote {
                        closed = true
                        i += 1
                        break
                    }
                    if c == "\n" { line += 1 }
                    if quote == "\"", c == "\\", i + 1 < chars.count {
                        let n = chars[i + 1]
                        switch n {
                        case "n": value.append("\n")
                        case "r": value.append("\r")
                        case "t": value.append("\t")
                        case "v": value.append("\u{0B}")
                        case "\\", "\"", "'": value.append(n)
                        default:
                            value.append(c)
                            value.append(n)
                        }
                        if n == "\n" { line += 1 }
                        i += 2
                        continue
                    }
                    value.append(c)
                    i += 1
                }
                guard closed else { throw fail("unterminated \(quote == "\"" ? "double" : "single")-quoted value of \(key)") }
                while i < chars.count, chars[i] == " " || chars[i] == "\t" { i += 1 }
                if i < chars.count, chars[i] == "#" { while i < chars.count, chars[i] != "\n" { i += 1 } }
                guard i == chars.count || chars[i] == "\n" else { throw fail("unexpected text after the quoted value of \(key)") }
            } else {
                while i < chars.count, chars[i] != "\n", chars[i] != "#" {
                    value.append(chars[i])
                    i += 1
                }
                while i < chars.count, chars[i] != "\n" { i += 1 }
            }
            try validateKey(key)
            let text = String(value)
            out[key] = quoted ? text : text.trimming(" \t")
        }
        return out
    }

    /// Refuses keys the platform reserves or that are not `[A-Z_][A-Z0-9_]*`.
    public static func validateKey(_ key: String) throws {
        if reservedKeys.contains(key) { throw HttpsError(.invalidArgument, "key \(key) is reserved for internal use") }
        guard let first = key.first, first == "_" || ("A"..."Z").contains(first),
            key.allSatisfy({ $0 == "_" || ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
        else {
            throw HttpsError(
                .invalidArgument, "key \(key) must start with an upper-case letter or '_' and hold only upper-case letters, digits and '_'")
        }
        if let p = reservedPrefixes.first(where: { key.hasPrefix($0) }) {
            throw HttpsError(.invalidArgument, "key \(key) starts with the reserved prefix \(p)")
        }
    }
}

extension String {
    /// CRLF and lone CR become LF.
    func replacingCRLF() -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var lastCR = false
        for c in unicodeScalars {
            if c == "\r" {
                out.append("\n")
                lastCR = true
                continue
            }
            if c == "\n" && lastCR {
                lastCR = false
                continue
            }
            lastCR = false
            out.unicodeScalars.append(c)
        }
        return out
    }
}
