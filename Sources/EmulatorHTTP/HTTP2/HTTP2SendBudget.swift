import EmulatorCore

/// The response bytes that all handlers of one HTTP/2 connection have queued and the event loop
/// has not framed yet, against one budget (`HTTP2Limits.queuedOutputBudget`). A handler that
/// wants to write while the connection is over budget waits until the loop has framed enough, so
/// a peer that reads nothing, or keeps its windows shut, holds at most this much in us however
/// many streams it opens (each stream alone is also held to `HTTP2Stream.highWater`).
///
/// Thread-safe: handlers add and wait from their tasks, the loop removes; the count and the
/// waiters live behind a `Mutex`.
final class HTTP2SendBudget: Sendable {
    private struct State {
        var queued = 0
        var closed = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextId = 0
    }

    /// The budget in bytes.
    let limit: Int
    private let state = Mutex(State())

    /// Creates a budget of `limit` bytes.
    init(limit: Int) { self.limit = max(1, limit) }

    /// Bytes queued now (tests).
    var queued: Int { state.withLock { $0.queued } }

    /// Returns once the connection is under budget, or closed, or the calling task is cancelled.
    func waitForRoom() async {
        let id = state.withLock { s -> Int? in
            guard s.queued >= limit, !s.closed else { return nil }
            s.nextId += 1
            return s.nextId
        }
        guard let id else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.queued < limit || s.closed || Task.isCancelled { return true }
                    s.waiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s in s.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }

    /// A handler queued `n` bytes.
    func add(_ n: Int) { state.withLock { $0.queued += n } }

    /// The loop framed (or dropped) `n` queued bytes; waiters continue once the queue is at half
    /// the budget (so they do not wake for every frame).
    func remove(_ n: Int) {
        guard n > 0 else { return }
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.queued -= n
            guard s.queued <= limit / 2, !s.waiters.isEmpty else { return [] }
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in ready { w.resume() }
    }

    /// The connection is gone: every waiter continues (its next write fails on its stream).
    func close() {
        let all = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in all { w.resume() }
    }
}
