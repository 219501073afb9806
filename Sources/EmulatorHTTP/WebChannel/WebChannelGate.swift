import EmulatorCore

/// Runs one forward request of a session at a time, in arrival order, so that a retried POST
/// racing its original cannot reorder or repeat maps. State behind a `Mutex`; waiters are resumed
/// first in, first out.
final class WebChannelGate: Sendable {
    private let state = Mutex<(busy: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Runs `body` once every earlier caller's body has finished.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if !s.busy {
                    s.busy = true
                    return true
                }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard !s.waiters.isEmpty else {
                s.busy = false
                return nil
            }
            return s.waiters.removeFirst()  // stays busy: handed over
        }
        next?.resume()
    }
}
