import EmulatorCore
import EmulatorStore

/// One Listen stream's queue of store events: the store delivers into it under a database lock
/// (so it only appends), the stream's sender task takes batches out and encodes them.
///
/// State behind a `Mutex`; the sender parks on a continuation the store (or cancellation, or a
/// timeout) resumes. A sender that falls too far behind marks the queue overflowed instead of
/// letting it grow without bound: the stream then ends and the client resumes from its token.
final class ListenSession: WatchSink, @unchecked Sendable {
    struct State {
        var events: [WatchEvent] = []
        var pendingDeltas = 0
        var waiter: CheckedContinuation<Void, Never>?
        var overflowed = false
        var closed = false
    }

    /// Queued document changes beyond which the session gives up on the client (it is not reading).
    static let maxPendingDeltas = 200_000

    private let state = Mutex(State())

    /// Queues an event (called by the store inside its lock).
    func deliver(_ event: WatchEvent) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.closed else { return nil }
            if case .changed(_, let deltas) = event { s.pendingDeltas += deltas.count }
            if s.pendingDeltas > Self.maxPendingDeltas {
                s.overflowed = true
                s.events = []
            } else {
                s.events.append(event)
            }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// The outcome of waiting for events.
    enum Batch {
        /// Events, in order.
        case events([WatchEvent])
        /// Nothing arrived within the timeout.
        case idle
        /// The client fell too far behind.
        case overflowed
        /// The session was closed (or the task cancelled).
        case closed
    }

    /// Waits up to `timeout` seconds for events and takes every queued one.
    func next(timeout: Double) async -> Batch {
        if let b = take() { return b }
        let timer = Task { [weak self] in
            // Only a timeout that really elapsed wakes the sender (a cancelled timer must not).
            guard (try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))) != nil else { return }
            self?.wake()
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if !s.events.isEmpty || s.overflowed || s.closed || Task.isCancelled { return true }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: { [weak self] in
            self?.wake()
        }
        if Task.isCancelled { return .closed }
        return take() ?? .idle
    }

    private func take() -> Batch? {
        state.withLock { s -> Batch? in
            if s.closed { return .closed }
            if s.overflowed { return .overflowed }
            guard !s.events.isEmpty else { return nil }
            defer {
                s.events = []
                s.pendingDeltas = 0
            }
            return .events(s.events)
        }
    }

    private func wake() {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }

    /// Stops the session: later events are dropped and a waiting sender returns.
    func close() {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.closed = true
            s.events = []
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }
}
