import EmulatorHTTP
import EmulatorRules
import Foundation
import Testing

@testable import EmulatorFuzzTargets

/// Replays the committed seed corpus and every regression input through its fuzz target: each
/// crash a fuzzer found is a file in `Fuzz/regressions/<target>/` and must stay fixed.
struct ReplayTests {
    /// `Fuzz/` of this checkout, found from this file's path.
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The input files of `Fuzz/<folder>/<target>/` (hidden files such as `.gitkeep` skipped),
    /// or nil when the folder does not exist.
    static func inputs(_ folder: String, _ target: FuzzTarget) -> [URL]? {
        let dir = fuzzDirectory.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return nil }
        return names.filter { !$0.hasPrefix(".") }.sorted().map { dir.appendingPathComponent($0) }
    }

    /// Every target has seeds, and they run clean.
    @Test(arguments: FuzzTarget.allCases)
    func corpusReplays(_ target: FuzzTarget) throws {
        let files = try #require(Self.inputs("corpus", target), "Fuzz/corpus/\(target.rawValue)/ is missing")
        #expect(!files.isEmpty, "Fuzz/corpus/\(target.rawValue)/ has no seeds")
        try replay(files, target)
    }

    /// Every target has a regression folder (maybe empty), and every input in it runs clean.
    @Test(arguments: FuzzTarget.allCases)
    func regressionsReplay(_ target: FuzzTarget) throws {
        let files = try #require(Self.inputs("regressions", target), "Fuzz/regressions/\(target.rawValue)/ is missing")
        try replay(files, target)
    }

    /// Rules seeds are whole rulesets that compile, so that fuzzing starts from inputs that reach
    /// the evaluator, not only the parser.
    @Test func rulesSeedsCompile() throws {
        for file in try #require(Self.inputs("corpus", .rules)) {
            let source = try String(contentsOf: file, encoding: .utf8)
            if case .failure(let error) = CompiledRuleset.compile(source: source) {
                Issue.record("\(file.lastPathComponent) does not compile: \(error)")
            }
        }
    }

    /// HTTP/2 seeds are connections that run without a connection error (the recorded grpcio
    /// session among them), so fuzzing starts from inputs that open streams and answer them.
    @Test func http2SeedsRunClean() throws {
        for file in try #require(Self.inputs("corpus", .http2)) {
            let data = try [UInt8](Data(contentsOf: file))
            let driver = HTTP2ConnectionDriver()
            driver.feed(Array(data.dropFirst()))
            #expect(driver.error == nil, "\(file.lastPathComponent) ends with \(String(describing: driver.error))")
            #expect(driver.streamCount > 0, "\(file.lastPathComponent) opens no stream")
        }
    }

    /// HPACK seeds are whole block sequences that decode without a compression error, so that
    /// fuzzing starts from inputs that reach the dynamic table and the re-encoding.
    @Test func hpackSeedsDecode() throws {
        for file in try #require(Self.inputs("corpus", .hpack)) {
            let result = try HPACKTarget.decodeBlocks(Array(Data(contentsOf: file)))
            #expect(result.error == nil && result.blocks >= 1, "\(file.lastPathComponent): \(result)")
        }
    }

    /// The rules target's data source has a document at every path, so `get()` and `exists()`
    /// return data: the seed `lookups.rules` grants a read only through them.
    @Test func rulesTargetReadsDocumentsThroughGetAndExists() throws {
        let file = Self.fuzzDirectory.appendingPathComponent("corpus/rules/lookups.rules")
        let ruleset = try CompiledRuleset.compile(source: String(contentsOf: file, encoding: .utf8)).get()
        let granted = ruleset.evaluate(RulesTarget.request(.get, ["users", "u"], auth: RulesTarget.auth), data: FixedDataSource())
        #expect(granted.allowed, "\(granted.explanation)")
        let denied = ruleset.evaluate(RulesTarget.request(.get, ["users", "u"], auth: RulesTarget.auth), data: EmptyDataSource())
        #expect(!denied.allowed)
    }

    /// Runs every file through `target`; a property violation fails the test with the file's name
    /// (a crash takes the test process down, which fails the run just as surely).
    func replay(_ files: [URL], _ target: FuzzTarget) throws {
        for file in files {
            let data = try Data(contentsOf: file)
            do { try target.run(Array(data)) } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
            }
        }
    }
}
