import EmulatorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The write end of the self-pipe the C signal handler writes to (set once before handlers).
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

/// Catches SIGINT and SIGTERM without killing the process, so shutdown can be graceful.
///
/// A real handler is installed with `sigaction` (it writes the signal number to a self-pipe,
/// which is async-signal-safe) rather than `SIG_IGN`: an ignored disposition is inherited by
/// every child process (function workers, `exec`'s command), which then could not be stopped
/// with SIGTERM, while a caught signal reverts to its default action in the child on exec.
/// `install()` must run before the emulator reports ready; a signal that arrives before `wait()`
/// is remembered.
final class SignalWatcher: Sendable {
    private let received = Mutex<(name: String?, waiter: CheckedContinuation<String, Never>?)>((nil, nil))

    /// Installs the handlers and starts the thread that reads the self-pipe.
    static func install() -> SignalWatcher {
        let w = SignalWatcher()
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return w }
        signalPipeWrite = fds[1]
        for sig in [SIGINT, SIGTERM] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { signo in
                var b = UInt8(truncatingIfNeeded: signo)
                _ = write(signalPipeWrite, &b, 1)
            }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
        let readEnd = fds[0]
        BackgroundThread.detach(name: "signal-watch") {
            var b: UInt8 = 0
            while read(readEnd, &b, 1) != 1 {}
            w.deliver(Int32(b) == SIGINT ? "SIGINT" : "SIGTERM")
        }
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
