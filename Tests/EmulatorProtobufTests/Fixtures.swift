import EmulatorCore
import Foundation
import Testing

/// The committed fixtures (`Fixtures/`), parsed with EmulatorCore's JSON parser.
enum Fixtures {
    /// `Fixtures/<name>.json`.
    static func load(_ name: String) throws -> JSON {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try JSON.parse(Array(try Data(contentsOf: url)))
    }

    /// Hex text (spaces allowed) to bytes.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8.filter { $0 != UInt8(ascii: " ") })
        var out: [UInt8] = []
        var i = 0
        while i + 1 < digits.count {
            out.append(UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16)!)
            i += 2
        }
        return out
    }

    /// Bytes to lowercase hex.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

/// Runs CPU-heavy test work on a thread of its own and returns its result. Swift Testing runs
/// tests on the concurrency pool (one thread per core here); a long synchronous loop there starves
/// the other suites' async tests (servers, actors, timeouts). Record issues from the result, on
/// the test's own task.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// JSON equality as a JSON reader sees it: numbers by value whether written as integers or
/// doubles, but with the sign of zero kept (-0.0 is a distinct Firestore double) unless
/// `signedZero` is false.
func sameJSON(_ a: JSON, _ b: JSON, signedZero: Bool = true) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.int(let x), .int(let y)): return x == y
    case (.int, .double), (.double, .int), (.double, .double):
        let x = a.doubleValue!, y = b.doubleValue!
        return (x == y && (x.sign == y.sign || !signedZero)) || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1, signedZero: signedZero) }
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.allSatisfy { k, v in y[k].map { sameJSON(v, $0, signedZero: signedZero) } ?? false }
    default: return false
    }
}
