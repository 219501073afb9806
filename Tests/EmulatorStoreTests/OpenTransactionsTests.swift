import EmulatorCore
import Testing

@testable import EmulatorStore

/// The lazy deadline queue behind a database's open transactions purges exactly the expired ones
/// and stays proportional to what it holds.
@Suite struct OpenTransactionsTests {
    let start = Timestamp(seconds: 1_800_000_000)

    func transaction(idle: Double = 60, lifetime: Double = 270, at now: Timestamp) -> StoreTransaction {
        StoreTransaction(readOnly: false, readTime: nil, idleUntil: now.adding(seconds: idle), endOfLife: now.adding(seconds: lifetime))
    }

    /// A transaction used since it was queued survives its first queued deadline and goes at its
    /// real one; the end of its lifetime holds however it is used.
    @Test func purgeDropsExactlyTheExpired() {
        var open = OpenTransactions()
        open.insert(transaction(at: start), key: "used")
        open.insert(transaction(at: start), key: "idle")
        open.insert(transaction(idle: 10, at: start), key: "short")
        open.update("used") { $0.idleUntil = start.adding(seconds: 110) }
        open.purge(now: start.adding(seconds: 9))
        #expect(open.count == 3)
        open.purge(now: start.adding(seconds: 60))
        #expect(open["used"] != nil && open["idle"] == nil && open["short"] == nil)
        open.update("used") { $0.idleUntil = start.adding(seconds: 1000) }
        open.purge(now: start.adding(seconds: 269))
        #expect(open.count == 1)
        open.purge(now: start.adding(seconds: 270))
        #expect(open.count == 0)
    }

    /// With the project clock moved back, a use can bring a deadline earlier: it is queued again.
    @Test func anEarlierDeadlineIsQueuedAgain() {
        var open = OpenTransactions()
        open.insert(transaction(at: start), key: "t")
        open.update("t") { $0.idleUntil = start.adding(seconds: -30) }
        open.purge(now: start.adding(seconds: -30))
        #expect(open.count == 0)
    }

    /// Begin-and-commit cycles leave stale queue entries; the queue is rebuilt before they pile up.
    @Test func staleEntriesDoNotAccumulate() {
        var open = OpenTransactions()
        open.insert(transaction(at: start), key: "kept")
        for i in 0..<10_000 {
            open.insert(transaction(at: start), key: "t\(i)")
            open.remove("t\(i)")
            #expect(open.queued <= 2 * open.count + 65)
        }
        #expect(open.count == 1)
        open.purge(now: start.adding(seconds: 60))
        #expect(open.count == 0 && open.queued == 0)
    }

    /// The heap gives deadlines back earliest first.
    @Test func theHeapIsOrdered() {
        var heap = DeadlineHeap()
        var rng = SystemRandomNumberGenerator()
        let times = (0..<500).map { _ in Int64.random(in: 0..<100, using: &rng) }
        for (i, t) in times.enumerated() { heap.push(start.adding(nanoseconds: t), "\(i)") }
        var out: [Timestamp] = []
        while let e = heap.popFirst() { out.append(e.deadline) }
        #expect(out == times.sorted().map { start.adding(nanoseconds: $0) })
    }
}
