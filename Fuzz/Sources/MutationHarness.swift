#if !LIBFUZZER
#if canImport(Glibc)
import Glibc
#endif
import EmulatorFuzzTargets
import Foundation

/// The deterministic mutation fuzzer (libFuzzer-style seed corpus and mutations, no coverage):
///   emulator-fuzz <target> [--seconds N] [--seed S]
/// Inputs start from Fuzz/corpus/<target>/ (the regression inputs are replayed by the Swift tests;
/// some are kilobytes long and would slow this smoke test down). Every execution's
/// input is copied to a preallocated buffer first, so that a signal handler can write it to
/// Fuzz/crashes/<target>/ before the process dies; a property violation is saved the same way.
/// Exits 3 on a crash, else prints executions and 0 crashes.
enum MutationHarness {
    /// Parses the command line and runs the loop.
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
            print("usage: emulator-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) [--seconds N] [--seed S]")
            exit(2)
        }
        var seconds = 30.0, seed: UInt64 = 1
        var it = args.dropFirst().makeIterator()
        while let a = it.next() {
            if a == "--seconds", let v = it.next().flatMap(Double.init) { seconds = v }
            if a == "--seed", let v = it.next().flatMap(UInt64.init) { seed = v }
        }
        let fuzzDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
        CrashFile.prepare(directory: fuzzDir + "/crashes/" + name, file: "crash-mutation-seed\(seed).bin")
        let seeds = load(fuzzDir + "/corpus/" + name)
        var rng = Rng(s: seed)
        var pool = seeds.isEmpty ? [[UInt8]()] : seeds
        let start = Date()
        var execs = 0
        while Date().timeIntervalSince(start) < seconds {
            let input = Mutator.mutate(pool[rng.below(pool.count)], &rng, pool: pool)
            CrashFile.remember(input)
            do { try target.run(input) } catch {
                CrashFile.save("emulator-fuzz: \(error); input saved to ")
            }
            execs += 1
            if pool.count < 512 && rng.below(50) == 0 { pool.append(input) }
        }
        print("emulator-fuzz \(name): \(execs) executions in \(Int(seconds)) s (seed \(seed), \(seeds.count) seeds), 0 crashes")
    }

    /// The files of a directory (sorted, so a seed means the same run; hidden ones such as
    /// `.gitkeep` skipped), or none.
    static func load(_ dir: String) -> [[UInt8]] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted().compactMap {
            FileManager.default.contents(atPath: dir + "/" + $0).map(Array.init)
        }
    }
}

/// SplitMix64: the harness's only randomness, seeded from `--seed`.
struct Rng {
    /// The state.
    var s: UInt64
    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        s &+= 0x9E37_79B9_7F4A_7C15
        var z = s
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A number in 0..<n (0 when n <= 0).
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
}

/// libFuzzer-like mutations: bit flips, byte inserts and deletes, dictionary tokens, copies, splices.
enum Mutator {
    /// Tokens of every target's grammar.
    static let dictionary: [[UInt8]] = [
        "\r\n", "\r\n\r\n", "Content-Length: ", "Transfer-Encoding: chunked", "{", "}", "[", "]", "\"", ":", ",",
        "null", "true", "1e400", "-0", "\\u", "\\ud800", "integerValue", "mapValue", "fields", "arrayValue", "values",
        "allow", "match", "/{x=**}", "if", "&&", "||", "==", "request.auth", "resource.data", "function", "let",
        "$(", "9223372036854775807", "fieldFilter", "compositeFilter", "op", "where", "orderBy", ".",
        ":path", "grpc-timeout", "\u{7F}\u{0}", "\u{40}\u{1}", "\u{3F}", "\u{20}",
    ].map { Array($0.utf8) }

    /// One to four mutations of `input`, capped at 64 KiB.
    static func mutate(_ input: [UInt8], _ r: inout Rng, pool: [[UInt8]]) -> [UInt8] {
        var b = input
        for _ in 0..<(1 + r.below(4)) {
            switch r.below(7) {
            case 0 where !b.isEmpty: b[r.below(b.count)] ^= UInt8(1 << r.below(8))
            case 1: b.insert(UInt8(truncatingIfNeeded: r.next()), at: r.below(b.count + 1))
            case 2 where !b.isEmpty: b.remove(at: r.below(b.count))
            case 3: b.insert(contentsOf: dictionary[r.below(dictionary.count)], at: r.below(b.count + 1))
            case 4 where b.count > 2:
                let a = r.below(b.count), n = min(b.count - a, 1 + r.below(16))
                b.insert(contentsOf: b[a..<(a + n)], at: r.below(b.count + 1))
            case 5 where !pool.isEmpty:
                let other = pool[r.below(pool.count)]
                if !other.isEmpty { b = Array(b.prefix(r.below(b.count + 1))) + Array(other.suffix(r.below(other.count + 1))) }
            default: if !b.isEmpty { b[r.below(b.count)] = UInt8(truncatingIfNeeded: r.next()) }
            }
        }
        return Array(b.prefix(64 * 1024))
    }
}

/// Where the current input goes when the process crashes. Global and preallocated because the
/// signal handler should not allocate.
enum CrashFile {
    /// The current input (at most 1 MiB of it).
    nonisolated(unsafe) static let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
    /// How many bytes of `buffer` are the current input.
    nonisolated(unsafe) static var length = 0
    /// `Fuzz/crashes` and `Fuzz/crashes/<target>`, as C strings, created when a crash happens.
    nonisolated(unsafe) static var directories: [[CChar]] = []
    /// The crash file's full path, as a C string.
    nonisolated(unsafe) static var path: [CChar] = []

    /// Sets the paths and installs the handler for fatal signals.
    static func prepare(directory dir: String, file: String) {
        directories = [(dir as NSString).deletingLastPathComponent, dir].map { Array($0.utf8CString) }
        path = Array((dir + "/" + file).utf8CString)
        for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
            signal(sig) { s in CrashFile.save("emulator-fuzz: crash (signal \(s)); input saved to ") }
        }
    }

    /// Copies the input about to run into the buffer.
    static func remember(_ input: [UInt8]) {
        input.withUnsafeBufferPointer { p in
            length = min(p.count, 1 << 20)
            if length > 0 { buffer.update(from: p.baseAddress!, count: length) }
        }
    }

    /// Prints `message` and the crash file's path, writes the buffered input there, exits 3.
    static func save(_ message: String) -> Never {
        _ = message.withCString { write(2, $0, strlen($0)) }
        for d in directories { mkdir(d, 0o755) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd >= 0 {
            _ = write(fd, buffer, length)
            close(fd)
        }
        _ = write(2, path, path.count - 1)
        _ = write(2, "\n", 1)
        _exit(3)
    }
}
#endif
