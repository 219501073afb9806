import Foundation
import Testing

@testable import EmulatorCore

@Suite struct MutexTests {
    /// Reads a callback out of a `Mutex` many times, then calls it on a thread with a small
    /// stack. A bare closure stored in the `Mutex` grows by two thunks per read and overflows
    /// that stack; a `Callback` does not grow.
    @Test func callbackReadManyTimesStaysShallow() async {
        let slot = Mutex<Callback<@Sendable (Int) -> Int>?>(Callback { $0 + 1 })
        for _ in 0..<100_000 { _ = slot.withLock { $0 } }
        let result = await withCheckedContinuation { (cont: CheckedContinuation<Int, Never>) in
            let t = Thread { cont.resume(returning: slot.withLock({ $0 })?.call(41) ?? -1) }
            t.stackSize = 64 * 1024
            t.start()
        }
        #expect(result == 42)
    }
}
