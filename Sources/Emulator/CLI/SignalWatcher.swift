#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Waits for SIGINT or SIGTERM without killing the process, so shutdown can be graceful.
enum SignalWatcher {
    /// Suspends until the first SIGINT or SIGTERM and returns its name.
    static func waitForTermination() async -> String {
        await withCheckedContinuation { (cont: CheckedContinuation<String, Never>) in
            let once = OnceFlag()
            var sources: [DispatchSourceSignal] = []
            for (sig, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(sig, SIG_IGN)
                let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                s.setEventHandler { if once.claim() { cont.resume(returning: name) } }
                s.resume()
                sources.append(s)
            }
            SignalSources.keep(sources)
        }
    }
}

/// Keeps the dispatch sources alive for the life of the process.
private enum SignalSources {
    nonisolated(unsafe) static var retained: [DispatchSourceSignal] = []
    static func keep(_ s: [DispatchSourceSignal]) { retained = s }
}

import Synchronization

/// A flag that can be claimed once across threads.
final class OnceFlag: Sendable {
    private let done = Mutex(false)
    /// True the first time only.
    func claim() -> Bool { done.withLock { d in if d { return false }; d = true; return true } }
}
