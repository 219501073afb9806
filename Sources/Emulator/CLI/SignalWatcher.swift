#if canImport(Glibc)
import EmulatorCore
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Catches SIGINT and SIGTERM without killing the process, so shutdown can be graceful.
/// `install()` must run before the emulator reports ready: a signal that arrives between
/// "ready" and the wait is then still caught (it is remembered until `wait()`).
final class SignalWatcher: Sendable {
    private let received = Mutex<(name: String?, waiter: CheckedContinuation<String, Never>?)>((nil, nil))

    /// Ignores the default actions and starts listening.
    static func install() -> SignalWatcher {
        let w = SignalWatcher()
        var sources: [DispatchSourceSignal] = []
        for (sig, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { w.deliver(name) }
            s.resume()
            sources.append(s)
        }
        SignalSources.keep(sources)
        return w
    }

    private func deliver(_ name: String) {
        let waiter = received.withLock { r -> CheckedContinuation<String, Never>? in
            guard r.name == nil else { return nil }
            r.name = name
            defer { r.waiter = nil }
            return r.waiter
        }
        waiter?.resume(returning: name)
    }

    /// Suspends until the first SIGINT or SIGTERM (or returns at once if one already came).
    func wait() async -> String {
        await withCheckedContinuation { (c: CheckedContinuation<String, Never>) in
            let already = received.withLock { r -> String? in
                if let n = r.name { return n }
                r.waiter = c
                return nil
            }
            if let already { c.resume(returning: already) }
        }
    }
}

/// Keeps the dispatch sources alive for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) static var retained: [DispatchSourceSignal] = []
    static func keep(_ s: [DispatchSourceSignal]) { retained = s }
}


/// A flag that can be claimed once across threads.
final class OnceFlag: Sendable {
    private let done = Mutex(false)
    /// True the first time only.
    func claim() -> Bool { done.withLock { d in if d { return false }; d = true; return true } }
}
