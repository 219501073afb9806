#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EmulatorCore
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

extension ProcessLauncher {
    /// Runs `process` from one thread that lives as long as this process, with an empty signal
    /// mask. A child that asks for `PR_SET_PDEATHSIG` is signalled when the thread that started it
    /// ends, not when the process does, so children that must die with the emulator (and only
    /// then) are started here.
    public static func runFromLongLivedThread(_ process: Process) throws {
        try LongLivedSpawner.shared.run { try process.run() }
    }
}

/// The thread behind `runFromLongLivedThread`: jobs are handed over one at a time (a `Mutex`
/// guards the job slot; semaphores order hand-over and completion).
private final class LongLivedSpawner: @unchecked Sendable {
    static let shared = LongLivedSpawner()
    private let lock = Mutex<Void>(())
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private var job: (() throws -> Void)?
    private var failure: (any Error)?

    private init() {
        let t = Thread { [self] in
            var empty = sigset_t()
            sigemptyset(&empty)
            pthread_sigmask(SIG_SETMASK, &empty, nil)
            while true {
                ready.wait()
                do { try job?() } catch { failure = error }
                done.signal()
            }
        }
        t.name = "emulator-spawner"
        t.start()
    }

    func run(_ body: @escaping () throws -> Void) throws {
        try lock.withLock { _ in
            job = body
            failure = nil
            ready.signal()
            done.wait()
            job = nil
            if let f = failure { throw f }
        }
    }
}
