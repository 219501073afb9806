import Dispatch
import EmulatorCore
import Testing

@testable import EmulatorStore

/// The encoding slots are set at most once and read without a lock: racing first reads all get
/// the same bytes, later reads get the kept ones, and another database is never served them.
/// (ThreadSanitizer runs this in the test command.)
@Suite struct DocumentEncodingsTests {
    @Test func racingFirstReadsKeepOneEncoding() {
        for round in 0..<50 {
            let cache = DocumentEncodings()
            let seen = Mutex(Array(repeating: [UInt8](), count: 8))
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                let bytes = cache.bytes(.protobuf, project: "p", database: "(default)") { () -> [UInt8] in [UInt8(round), UInt8(i)] }
                seen.withLock { $0[i] = bytes }
            }
            let kept = cache.cached(.protobuf, project: "p", database: "(default)")
            #expect(kept != nil)
            // Each reader got either the kept bytes or its own equal-length encoding; a read
            // after the race always gets the kept ones.
            for bytes in seen.withLock({ $0 }) { #expect(bytes.count == 2 && bytes[0] == UInt8(round)) }
            #expect(cache.bytes(.protobuf, project: "p", database: "(default)") { () -> [UInt8] in [] } == kept)
            #expect(cache.cached(.restJSON, project: "p", database: "(default)") == nil)
            #expect(cache.cached(.protobuf, project: "p", database: "other") == nil)
        }
    }
}
