import EmulatorCore

/// Cloud Storage's naming rules, checked before anything is stored.
public enum StorageNames {
    /// Bucket names: 3-63 characters (up to 222 with dots, each dot-separated part at most 63) of
    /// lowercase letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit.
    public static func validateBucket(_ name: String) throws {
        let bytes = Array(name.utf8)
        let ok =
            bytes.count >= 3 && bytes.count <= 222
            && bytes.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 || $0 == 46 }
            && isAlnum(bytes[0]) && isAlnum(bytes[bytes.count - 1])
            && (bytes.count <= 63 || name.split(separator: ".").allSatisfy { $0.utf8.count <= 63 })
        guard ok else {
            throw StorageErrors.invalid(
                "Invalid bucket name: '\(name)'. Bucket names are 3-63 characters of lowercase letters, digits, '-', '_' and '.', starting and ending with a letter or digit."
            )
        }
    }

    /// Object names: 1-1024 bytes of UTF-8 without carriage returns or line feeds, not `.` or `..`.
    public static func validateObject(_ name: String) throws {
        let n = name.utf8.count
        guard n >= 1 else { throw StorageErrors.invalid("The object name is empty.") }
        guard n <= 1024 else { throw StorageErrors.invalid("The object name is longer than 1024 bytes.") }
        guard !name.utf8.contains(where: { $0 == 10 || $0 == 13 }) else {
            throw StorageErrors.invalid("The object name contains a carriage return or line feed.")
        }
        guard name != "." && name != ".." else { throw StorageErrors.invalid("The object name cannot be '.' or '..'.") }
    }

    private static func isAlnum(_ b: UInt8) -> Bool { (b >= 97 && b <= 122) || (b >= 48 && b <= 57) }

    /// A random (version 4) UUID, the form of Firebase download tokens.
    public static func uuid(_ ids: IDGenerator) -> String {
        var b = ids.bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = b.map { byte -> String in
            let s = String(byte, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20..<32])
    }
}
