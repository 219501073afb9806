import EmulatorCore
import Testing

@testable import EmulatorStore

/// A database's open transactions: at the limit exactly the expired ones are dropped, and a pass
/// that drops nothing is not repeated before anything can expire.
@Suite struct OpenTransactionsTests {
    let start = Timestamp(seconds: 1_800_000_000)

    /// `makeRoom`'s answer (a mutating call cannot sit inside `#expect`).
    func room(_ open: inout OpenTransactions, limit: Int, now: Timestamp) -> Bool { open.makeRoom(limit: limit, now: now) }

    func transaction(idle: Double = 60, lifetime: Double = 270, at now: Timestamp) -> StoreTransaction {
        StoreTransaction(readOnly: false, readTime: nil, idleUntil: now.adding(seconds: idle), endOfLife: now.adding(seconds: lifetime))
    }

    /// A transaction used since it began survives its first idle deadline and goes at its real
    /// one; the end of its lifetime holds however it is used. Below the limit nothing is dropped.
    @Test func atTheLimitExactlyTheExpiredAreDropped() {
        var open = OpenTransactions()
        open.insert(transaction(at: start), key: "used")
        open.insert(transaction(at: start), key: "idle")
        open.insert(transaction(idle: 10, at: start), key: "short")
        open.update("used") { $0.idleUntil = start.adding(seconds: 110) }
        #expect(!room(&open, limit: 3, now: start.adding(seconds: 9)))
        #expect(open.count == 3)
        #expect(room(&open, limit: 4, now: start.adding(seconds: 60)))
        #expect(open.count == 3)  // room without a pass: the expired ones stay
        #expect(room(&open, limit: 3, now: start.adding(seconds: 60)))
        #expect(open["used"] != nil && open["idle"] == nil && open["short"] == nil)
        open.update("used") { $0.idleUntil = start.adding(seconds: 1000) }
        #expect(!room(&open, limit: 1, now: start.adding(seconds: 269)))
        #expect(open.count == 1)
        #expect(room(&open, limit: 1, now: start.adding(seconds: 270)))
        #expect(open.count == 0)
    }

    /// With the project clock moved back, a use or a begin can bring a deadline before the one
    /// noted by a fruitless pass: it is still dropped when it expires.
    @Test func anEarlierDeadlineIsStillDropped() {
        var open = OpenTransactions()
        open.insert(transaction(at: start), key: "t")
        #expect(!room(&open, limit: 1, now: start))
        open.update("t") { $0.idleUntil = start.adding(seconds: -30) }
        #expect(room(&open, limit: 1, now: start.adding(seconds: -30)))
        #expect(open.count == 0)

        open.insert(transaction(at: start), key: "a")
        #expect(!room(&open, limit: 1, now: start))
        open.remove("a")
        open.insert(transaction(at: start.adding(seconds: -100)), key: "b")
        #expect(room(&open, limit: 1, now: start.adding(seconds: -40)))
        #expect(open.count == 0)
    }

    /// A pass that leaves the database full notes the earliest deadline left; refused begins
    /// before it pass over nothing, and the first one at it drops what expired.
    @Test func aFruitlessPassWaitsForTheEarliestDeadline() {
        var open = OpenTransactions()
        let limit = 10_000
        for i in 0..<limit { open.insert(transaction(idle: i == 500 ? 30 : 60, at: start), key: "t\(i)") }
        #expect(!room(&open, limit: limit, now: start.adding(seconds: 1)))
        #expect(open.noneExpireBefore == start.adding(seconds: 30))
        for _ in 0..<limit { #expect(!room(&open, limit: limit, now: start.adding(seconds: 29))) }
        #expect(room(&open, limit: limit, now: start.adding(seconds: 30)))
        #expect(open.count == limit - 1 && open["t500"] == nil)
        #expect(open.noneExpireBefore == start.adding(seconds: 60))
    }
}
