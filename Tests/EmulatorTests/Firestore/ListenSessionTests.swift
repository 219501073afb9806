import EmulatorCore
import EmulatorStore
import Testing

@testable import Emulator

@Suite struct ListenSessionTests {
    @Test func eventsQueuedBeforeTheSenderWaitsAreTakenTogether() async {
        let s = ListenSession()
        s.deliver(.removed(target: 1))
        s.deliver(.removed(target: 2))
        guard case .events(let e) = await s.next() else {
            Issue.record("expected events")
            return
        }
        #expect(e.count == 2)
    }

    @Test func aSilentSessionIsWokenForItsHeartbeat() async throws {
        let s = ListenSession()
        let beats = ListenHeartbeats(interval: .milliseconds(100), tick: .milliseconds(20))
        beats.add(s)
        defer { beats.remove(s) }
        let started = ContinuousClock.now
        guard case .idle = await s.next() else {
            Issue.record("expected idle")
            return
        }
        #expect(ContinuousClock.now - started >= .milliseconds(90))
        s.deliver(.removed(target: 3))
        guard case .events = await s.next() else {
            Issue.record("expected events")
            return
        }
    }

    @Test func overflowAndCloseEndTheSender() async {
        let s = ListenSession()
        let delta = WatchDelta(path: "a/b", document: nil, targets: [], removedTargets: [1], deleted: true)
        s.deliver(.changed(readTime: Timestamp(seconds: 1), deltas: Array(repeating: delta, count: ListenSession.maxPendingDeltas + 1)))
        guard case .overflowed = await s.next() else {
            Issue.record("expected overflow")
            return
        }
        let t = ListenSession()
        let waiting = Task { await t.next() }
        try? await Task.sleep(nanoseconds: 20_000_000)
        t.close()
        guard case .closed = await waiting.value else {
            Issue.record("expected closed")
            return
        }
    }
}
