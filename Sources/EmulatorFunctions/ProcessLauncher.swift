#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation

/// Starts child processes with an empty signal mask. `Process.run()` spawns the child with the
/// calling thread's mask, and Dispatch and Swift-concurrency threads block almost every signal,
/// so a child started from them could never be stopped with SIGTERM or interrupted with Ctrl-C.
public enum ProcessLauncher {
    /// Runs `process` from a fresh thread whose signal mask is empty.
    public static func run(_ process: Process) throws {
        let done = DispatchSemaphore(value: 0)
        let result = LaunchResult()
        let t = Thread {
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            do { try process.run() } catch { result.error = error }
            done.signal()
        }
        t.start()
        done.wait()
        if let e = result.error { throw e }
    }
}

/// Carries a launch error back from the launching thread (written before the semaphore signals).
private final class LaunchResult: @unchecked Sendable {
    var error: (any Error)?
}
