import EmulatorCore

/// Wakes StreamingPull sessions when their subscription may have something to deliver (a publish,
/// a nack, a seek, a reset). Keyed by subscription full name; a waiter also wakes after its
/// timeout (deadlines and backoffs on the project clock are polled that way, which also covers a
/// clock moved by the control plane). State behind `EmulatorCore.Mutex`.
final class PubSubWakeups: Sendable {
    private struct Waiter {
        let key: String
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var nextId = 0
        var waiters: [Int: Waiter] = [:]
        var byKey: [String: Set<Int>] = [:]
    }

    private let state = Mutex(State())

    /// Wakes every waiter of `key`.
    func wake(_ key: String) {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard let ids = s.byKey.removeValue(forKey: key) else { return [] }
            return ids.compactMap { s.waiters.removeValue(forKey: $0)?.continuation }
        }
        for c in woken { c.resume() }
    }

    /// Wakes every waiter whose key starts with `prefix` (a project reset, restore or import).
    func wake(prefix: String) {
        let keys = state.withLock { s in s.byKey.keys.filter { $0.hasPrefix(prefix) } }
        for k in keys { wake(k) }
    }

    /// Suspends until `key` is woken, `seconds` pass, or the task is cancelled.
    func wait(_ key: String, seconds: Double) async {
        let id = state.withLock { s -> Int in
            s.nextId += 1
            return s.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { s -> Bool in
                    guard !Task.isCancelled else { return false }
                    s.waiters[id] = Waiter(key: key, continuation: c)
                    s.byKey[key, default: []].insert(id)
                    return true
                }
                guard registered else { return c.resume() }
                let nanos = max(1_000_000, MonotonicClock.nanoseconds(inSeconds: min(seconds, 60)))
                Task.detached { [weak self] in
                    try? await Task.sleep(nanoseconds: nanos)
                    self?.resume(id)
                }
            }
        } onCancel: {
            resume(id)
        }
    }

    private func resume(_ id: Int) {
        let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let w = s.waiters.removeValue(forKey: id) else { return nil }
            s.byKey[w.key]?.remove(id)
            if s.byKey[w.key]?.isEmpty == true { s.byKey[w.key] = nil }
            return w.continuation
        }
        c?.resume()
    }
}
