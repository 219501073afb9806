#if canImport(Glibc)
import Glibc
#endif
import EmulatorAuth
import EmulatorCore
import EmulatorHTTP
import EmulatorRules
import EmulatorStore
import Foundation

// A deterministic mutation fuzzer (libFuzzer-style seed corpus + mutations, no instrumentation):
//   swift run -c release emulator-fuzz <target> [--seconds N] [--seed S]
// Targets: http, json, value, query, rules, jwt. Inputs start from Fuzz/corpus/<target>/; every
// execution's input is kept in a preallocated buffer so a crash handler can write it to
// Fuzz/crash-<target>.bin before the process dies. Prints executions and crashes.

struct Rng {
    var s: UInt64
    mutating func next() -> UInt64 {
        s &+= 0x9E37_79B9_7F4A_7C15
        var z = s
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
}

nonisolated(unsafe) var crashBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 20)
nonisolated(unsafe) var crashLength = 0
nonisolated(unsafe) var crashPath: [CChar] = []

func installCrashHandler() {
    for sig in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
        signal(sig) { s in
            let fd = open(crashPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            if fd >= 0 { _ = write(fd, crashBuffer, crashLength); close(fd) }
            let msg = "emulator-fuzz: crash (signal \(s)); input saved\n"
            _ = msg.withCString { write(2, $0, strlen($0)) }
            _exit(3)
        }
    }
}

let dictionary: [[UInt8]] = ["\r\n", "\r\n\r\n", "Content-Length: ", "Transfer-Encoding: chunked", "{", "}", "[", "]", "\"", ":", ",",
                             "null", "true", "1e400", "-0", "\\u", "\\ud800", "integerValue", "mapValue", "fields", "arrayValue", "values",
                             "allow", "match", "/{x=**}", "if", "&&", "||", "==", "request.auth", "resource.data", "function", "let",
                             "$(", "9223372036854775807", "fieldFilter", "compositeFilter", "op", "where", "orderBy", "."].map { Array($0.utf8) }

func mutate(_ input: [UInt8], _ r: inout Rng, corpus: [[UInt8]]) -> [UInt8] {
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
        case 5 where !corpus.isEmpty:
            let other = corpus[r.below(corpus.count)]
            if !other.isEmpty { b = Array(b.prefix(r.below(b.count + 1))) + Array(other.suffix(r.below(other.count + 1))) }
        default: if !b.isEmpty { b[r.below(b.count)] = UInt8(truncatingIfNeeded: r.next()) }
        }
    }
    return Array(b.prefix(64 * 1024))
}

func run(_ target: String, _ data: [UInt8], _ r: inout Rng) {
    switch target {
    case "http":
        var p = HTTPRequestParser(maxHeaderBytes: 4096, maxBodyBytes: 65536)
        var i = 0
        while i < data.count {
            let n = 1 + r.below(64)
            p.feed(data[i..<min(data.count, i + n)])
            i += n
            loop: while true {
                switch p.next() {
                case .request(let req): _ = req.queryItems; _ = PercentEncoding.decode(req.path)
                case .expectContinue: continue
                case .needMore, .error: break loop
                }
            }
        }
    case "json":
        if let j = try? JSON.parse(data) { _ = try? JSON.parse(j.serializedBytes()) }
    case "value":
        if let j = try? JSON.parse(data), let v = try? Value(json: j) { _ = Value.compare(v, v); _ = try? Value(json: v.json) }
    case "query":
        if let j = try? JSON.parse(data) { _ = try? StructuredQuery(json: j) }
    case "rules":
        let text = String(decoding: data, as: UTF8.self)
        if case .success(let rs) = CompiledRuleset.compile(source: text) {
            for m in RulesMethod.allCases {
                _ = rs.evaluate(RulesRequest(method: m, path: ["c", "d"], auth: AuthContext(uid: "u", token: ["sub": "u"]), time: Timestamp(seconds: 0),
                                             resource: ["a": .int(1)], requestResource: ["a": .string("x")],
                                             query: RulesQuery(limit: 5, offset: nil, orderBy: [], disjuncts: [["a": .equal(.int(1))]])), data: EmptyDataSource())
            }
        }
    case "jwt":
        _ = JWT.decode(String(decoding: data, as: UTF8.self))
    default:
        break
    }
}

let args = CommandLine.arguments.dropFirst()
guard let target = args.first, ["http", "json", "value", "query", "rules", "jwt"].contains(target) else {
    print("usage: emulator-fuzz http|json|value|query|rules|jwt [--seconds N] [--seed S]")
    exit(2)
}
var seconds = 30.0, seed: UInt64 = 1
var it = args.dropFirst().makeIterator()
while let a = it.next() {
    if a == "--seconds", let v = it.next().flatMap(Double.init) { seconds = v }
    if a == "--seed", let v = it.next().flatMap(UInt64.init) { seed = v }
}
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
crashPath = Array((root.path + "/crash-\(target).bin").utf8CString)
installCrashHandler()
let corpusDir = root.path + "/corpus/" + target
let corpus: [[UInt8]] = ((try? FileManager.default.contentsOfDirectory(atPath: corpusDir)) ?? []).sorted().compactMap {
    FileManager.default.contents(atPath: corpusDir + "/" + $0).map(Array.init)
}
var rng = Rng(s: seed)
var pool = corpus.isEmpty ? [[UInt8]()] : corpus
let start = Date()
var execs = 0
while Date().timeIntervalSince(start) < seconds {
    let input = mutate(pool[rng.below(pool.count)], &rng, corpus: pool)
    input.withUnsafeBufferPointer { p in
        crashLength = min(p.count, 1 << 20)
        if crashLength > 0 { crashBuffer.update(from: p.baseAddress!, count: crashLength) }
    }
    run(target, input, &rng)
    execs += 1
    if pool.count < 512 && rng.below(50) == 0 { pool.append(input) }
}
print("emulator-fuzz \(target): \(execs) executions in \(Int(seconds)) s (seed \(seed), \(corpus.count) seeds), 0 crashes")
