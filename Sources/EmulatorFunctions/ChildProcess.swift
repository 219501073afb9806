#if canImport(Glibc)
import Glibc
#endif
import CSpawn
import Dispatch
import EmulatorCore

/// A child process (a functions worker, `emulator exec`'s command), started through
/// `/usr/bin/env` so the command is looked up on `PATH`.
///
/// Replaces Foundation's `Process`, which exists only in the full Foundation (CoreFoundation and
/// ICU's data would add about 40 MB to the static release binary). Like `Process` on Linux, the
/// child gets its own process group, descriptors 0-2 only and, as `Process` does not, an empty
/// signal mask and default signal dispositions: Dispatch and Swift-concurrency threads block
/// almost every signal and the emulator ignores SIGPIPE, and a child inheriting either could not
/// be stopped with SIGTERM or would misbehave on a closed pipe. Each child has a reaper thread
/// that waits for it (without reaping until the exit is recorded, so `terminate()` can never
/// signal a recycled pid). State is behind a `Mutex`.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Equatable {
        /// It exited with this code.
        case exited(Int32)
        /// This signal killed it.
        case signalled(Int32)

        /// The shell's convention: the exit code, or 128 + the signal number.
        public var status: Int32 {
            switch self {
            case .exited(let code): return code
            case .signalled(let signal): return 128 + signal
            }
        }
    }

    private struct State {
        var termination: Termination?
        /// Set once the child has exited and before it is reaped: no more signals.
        var exited = false
        var waiters: [CheckedContinuation<Termination, Never>] = []
        var blockedWaiters: [DispatchSemaphore] = []
        var outputFd: Int32
    }

    /// The child's process id.
    public let pid: Int32
    private let state: Mutex<State>

    private init(pid: Int32, outputFd: Int32) {
        self.pid = pid
        state = Mutex(State(outputFd: outputFd))
    }

    deinit {
        state.withLock { s in if s.outputFd >= 0 { close(s.outputFd) } }
    }

    /// Starts `/usr/bin/env command...` with exactly `environment`, in `workingDirectory` when
    /// given. With `captureOutput` its standard output is a pipe read with `readOutput()`;
    /// otherwise it shares the emulator's. `onExit` runs on the reaper thread once the child has
    /// ended. Throws `ChildProcessError` naming the cause when it cannot start.
    public static func start(command: [String], environment: [String: String], workingDirectory: String? = nil,
                             captureOutput: Bool = false,
                             onExit: (@Sendable (Termination) -> Void)? = nil) throws -> ChildProcess {
        var pipeFds: [Int32] = [-1, -1]
        if captureOutput {
            let rc = cspawn_pipe(&pipeFds)
            guard rc == 0 else { throw ChildProcessError(command: command, errno: rc) }
        }
        let argv = (["/usr/bin/env"] + command).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for p in argv + envp { free(p) }
        }
        var pid: pid_t = 0
        let rc = (argv + [nil]).withUnsafeBufferPointer { a in
            (envp + [nil]).withUnsafeBufferPointer { e in
                cspawn_start(&pid, "/usr/bin/env", a.baseAddress, e.baseAddress, workingDirectory, pipeFds[1])
            }
        }
        if pipeFds[1] >= 0 { close(pipeFds[1]) }
        guard rc == 0 else {
            if pipeFds[0] >= 0 { close(pipeFds[0]) }
            throw ChildProcessError(command: command, errno: rc, workingDirectory: workingDirectory)
        }
        let child = ChildProcess(pid: pid, outputFd: pipeFds[0])
        BackgroundThread.detach(name: "child-reaper", stackSize: 256 * 1024) {
            child.reap(onExit: onExit)
        }
        return child
    }

    /// Sends SIGTERM, unless the child has already ended.
    public func terminate() { send(signal: SIGTERM) }

    /// Sends `signal`, unless the child has already ended.
    public func send(signal: Int32) {
        state.withLock { s in
            if !s.exited { kill(pid, signal) }
        }
    }

    /// Blocks the calling thread until the child has ended.
    public func waitUntilExit() -> Termination {
        let semaphore = DispatchSemaphore(value: 0)
        if let t = state.withLock({ s -> Termination? in
            if let t = s.termination { return t }
            s.blockedWaiters.append(semaphore)
            return nil
        }) { return t }
        semaphore.wait()
        return state.withLock { $0.termination! }
    }

    /// Suspends until the child has ended.
    public func termination() async -> Termination {
        await withCheckedContinuation { (c: CheckedContinuation<Termination, Never>) in
            let done = state.withLock { s -> Termination? in
                if let t = s.termination { return t }
                s.waiters.append(c)
                return nil
            }
            if let done { c.resume(returning: done) }
        }
    }

    /// Reads the next chunk (up to 64 KiB) of the captured standard output, blocking until there
    /// is one; `[]` at the end of the output (the pipe is then closed) or without capture. One
    /// reader at a time.
    public func readOutput() -> [UInt8] {
        let fd = state.withLock { $0.outputFd }
        guard fd >= 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { return Array(buffer[0..<n]) }
            if n < 0 && errno == EINTR { continue }
            state.withLock { s in
                if s.outputFd == fd { close(fd); s.outputFd = -1 }
            }
            return []
        }
    }

    /// The reaper thread's work: wait for the exit, record it (no signals from then on), reap,
    /// then wake every waiter and run `onExit`.
    private func reap(onExit: (@Sendable (Termination) -> Void)?) {
        _ = cspawn_wait_exit(pid)
        state.withLock { $0.exited = true }
        var signalled: Int32 = 0
        var code: Int32 = 0
        let termination: Termination
        if cspawn_reap(pid, &signalled, &code) == 0 {
            termination = signalled != 0 ? .signalled(code) : .exited(code)
        } else {
            // Only if something else reaped it first; its status is lost.
            termination = .exited(-1)
        }
        let (waiters, blocked) = state.withLock { s -> ([CheckedContinuation<Termination, Never>], [DispatchSemaphore]) in
            s.termination = termination
            defer { s.waiters = []; s.blockedWaiters = [] }
            return (s.waiters, s.blockedWaiters)
        }
        for w in waiters { w.resume(returning: termination) }
        for b in blocked { b.signal() }
        onExit?(termination)
    }
}

/// Why a child process could not start: the command and the system's reason.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// The command that did not start.
    public let command: [String]
    /// The errno value.
    public let code: Int32
    /// The working directory asked for, if any.
    public let workingDirectory: String?

    init(command: [String], errno: Int32, workingDirectory: String? = nil) {
        self.command = command
        code = errno
        self.workingDirectory = workingDirectory
    }

    /// `cannot start '<command>': <reason>` (naming the working directory when one was asked for).
    public var description: String {
        let reason = String(cString: strerror(code))
        let dir = workingDirectory.map { " in '\($0)'" } ?? ""
        return "cannot start '\(command.joined(separator: " "))'\(dir): \(reason)"
    }
}
