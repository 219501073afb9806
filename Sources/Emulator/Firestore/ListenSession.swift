import EmulatorCore
import EmulatorStore

/// One Listen stream's queue of store events: the store delivers into it under a database lock
/// (so it only appends), the stream's sender task takes batches out and encodes them.
///
/// State behind a `Mutex`; the sender parks on a continuation the store (or cancellation, or the
/// heartbeat ticker) resumes. A sender that falls too far behind marks the queue overflowed instead of
/// letting it grow without bound: the stream then ends and the client resumes from its token.
final class ListenSession: WatchSink, Sendable {
    /// Queued events, the parked sender, and whether the queue overflowed or closed.
    struct State {
        var events: [WatchEvent] = []
        var pendingDeltas = 0
        var waiter: CheckedContinuation<Void, Never>?
        var overflowed = false
        var closed = false
        var lastActivity = ContinuousClock.now
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

    /// Waits for events and takes every queued one; `.idle` when `ListenHeartbeats` finds the
    /// session silent for its heartbeat interval. (No timer per wait: a task created and cancelled
    /// for every commit would cost more than the commit's own delivery.)
    func next() async -> Batch {
        if let b = take() { return b }
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
            s.lastActivity = ContinuousClock.now
            defer {
                s.events = []
                s.pendingDeltas = 0
            }
            return .events(s.events)
        }
    }

    /// Wakes a waiting sender when nothing was sent for `interval` (it then sends a heartbeat).
    func wakeIfSilent(since interval: Duration, now: ContinuousClock.Instant) {
        let w = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.waiter != nil, now - s.lastActivity >= interval else { return nil }
            s.lastActivity = now
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
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

/// Wakes listener sessions that have been silent for the heartbeat interval, from one task that
/// ticks every few seconds, rather than one timer per session and wait.
///
/// Sessions are held weakly behind a `Mutex`; the ticking task starts with the first session.
final class ListenHeartbeats: Sendable {
    private struct WeakSession {
        weak var session: ListenSession?
    }

    private let sessions = Mutex<(all: [ObjectIdentifier: WeakSession], ticking: Bool)>(([:], false))
    private let interval: Duration
    private let tick: Duration

    /// A ticker waking sessions silent for `interval`, checked every `tick`.
    init(interval: Duration, tick: Duration = .seconds(5)) {
        self.interval = interval
        self.tick = tick
    }

    /// Watches `session` until `remove`.
    func add(_ session: ListenSession) {
        let start = sessions.withLock { s -> Bool in
            s.all[ObjectIdentifier(session)] = WeakSession(session: session)
            defer { s.ticking = true }
            return !s.ticking
        }
        guard start else { return }
        Task { [weak self] in
            while let self {
                try? await Task.sleep(for: self.tick)
                let now = ContinuousClock.now
                let live = self.sessions.withLock { s -> [ListenSession] in
                    s.all = s.all.filter { $0.value.session != nil }
                    if s.all.isEmpty { s.ticking = false }
                    return s.all.values.compactMap(\.session)
                }
                if live.isEmpty { return }
                for session in live { session.wakeIfSilent(since: self.interval, now: now) }
            }
        }
    }

    /// Stops watching `session`.
    func remove(_ session: ListenSession) {
        _ = sessions.withLock { $0.all.removeValue(forKey: ObjectIdentifier(session)) }
    }
}
