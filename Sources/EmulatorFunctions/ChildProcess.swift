import CSpawn
import Dispatch
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// A child process (a functions worker, a Python codebase's launcher or venv install, `emulator
/// exec`'s command), started through `/usr/bin/env` so the command is looked up on `PATH`, or
/// directly from a path.
///
/// Replaces Foundation's `Process`, which exists only in the full Foundation (CoreFoundation and
/// ICU's data would add about 40 MB to the static release binary). Like `Process` on Linux, the
/// child gets its own process group, descriptors 0-2 only and, as `Process` does not, an empty
/// signal mask and default signal dispositions: Dispatch and Swift-concurrency threads block
/// almost every signal and the emulator ignores SIGPIPE, and a child inheriting either could not
/// be stopped with SIGTERM or would misbehave on a closed pipe. Every child is started from one
/// thread that lives as long as the emulator (`Spawner`): Linux sends a child's
/// `PR_SET_PDEATHSIG` signal when the *thread* that started it ends, so a child that asks for it
/// (the Python launcher does) dies with the emulator and only then. Each child has a reaper thread
/// that waits for it (without reaping until the exit is recorded, so `terminate()` can never
/// signal a recycled pid). State is behind a `Mutex`; the input pipe behind its own, so a blocked
/// write never holds up the reaper.
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

    /// Where a child's standard input comes from.
    public enum Input: Sendable {
        /// The emulator's own standard input.
        case inherit
        /// `/dev/null`: reading gives end of file at once.
        case nullDevice
        /// A pipe written with `writeInput(_:)` and closed with `closeInput()`.
        case pipe
    }

    /// Where a child's standard error goes.
    public enum ErrorOutput: Sendable {
        /// The emulator's own standard error.
        case inherit
        /// Into the captured standard output (needs `captureOutput`), interleaved as written.
        case output
        /// A pipe of its own, read with `readErrorOutput()`.
        case capture
    }

    private struct State {
        var termination: Termination?
        /// Set once the child has exited and before it is reaped: no more signals.
        var exited = false
        var waiters: [CheckedContinuation<Termination, Never>] = []
        var blockedWaiters: [DispatchSemaphore] = []
        var outputFd: Int32
        var errorFd: Int32
    }

    /// The child's process id (also its process group's id).
    public let pid: Int32
    private let state: Mutex<State>
    /// The write end of the input pipe; -1 without one or once closed.
    private let inputFd: Mutex<Int32>

    private init(pid: Int32, inputFd: Int32, outputFd: Int32, errorFd: Int32) {
        self.pid = pid
        state = Mutex(State(outputFd: outputFd, errorFd: errorFd))
        self.inputFd = Mutex(inputFd)
    }

    deinit {
        state.withLock { s in
            if s.outputFd >= 0 { close(s.outputFd) }
            if s.errorFd >= 0 { close(s.errorFd) }
        }
        inputFd.withLock { fd in if fd >= 0 { close(fd) } }
    }

    /// Starts `/usr/bin/env command...` (with `searchPath` false: the program at the path
    /// `command[0]`, run directly, so a path containing `=` is safe) with exactly `environment`,
    /// in `workingDirectory` when given. With `captureOutput` its standard output is a pipe read
    /// with `readOutput()`; otherwise it shares the emulator's. `input` and `errorOutput` say the
    /// same for standard input and error. `onExit` runs on the reaper thread once the child has
    /// ended. Throws `ChildProcessError` naming the cause when it cannot start (with `searchPath`
    /// false, also when the program does not exist; through `env`, that is exit status 127).
    public static func start(
        command: [String], environment: [String: String], workingDirectory: String? = nil,
        searchPath: Bool = true, input: Input = .inherit, captureOutput: Bool = false,
        errorOutput: ErrorOutput = .inherit,
        onExit: (@Sendable (Termination) -> Void)? = nil
    ) throws -> ChildProcess {
        precondition(errorOutput != .output || captureOutput, "errorOutput: .output needs captureOutput")  // trap-ok: a programming error in the caller's constant arguments
        // Parent ends (kept) and child ends (closed here once the child has them).
        var parentFds: [Int32] = []
        var childFds: [Int32] = []
        func fail(_ rc: Int32) -> ChildProcessError {
            for fd in parentFds + childFds { close(fd) }
            return ChildProcessError(command: command, errno: rc, workingDirectory: workingDirectory)
        }
        /// A pipe; returns (read end, write end).
        func pipe() throws -> (Int32, Int32) {
            var fds: [Int32] = [-1, -1]
            let rc = cspawn_pipe(&fds)
            guard rc == 0 else { throw fail(rc) }
            return (fds[0], fds[1])
        }
        var stdinFd: Int32 = -1, inputWrite: Int32 = -1
        switch input {
        case .inherit: break
        case .nullDevice:
            stdinFd = cspawn_open_null()
            guard stdinFd >= 0 else { throw fail(-stdinFd) }
            childFds.append(stdinFd)
        case .pipe:
            let (r, w) = try pipe()
            stdinFd = r
            inputWrite = w
            childFds.append(r)
            parentFds.append(w)
        }
        var stdoutFd: Int32 = -1, outputRead: Int32 = -1
        if captureOutput {
            let (r, w) = try pipe()
            stdoutFd = w
            outputRead = r
            childFds.append(w)
            parentFds.append(r)
        }
        var stderrFd: Int32 = -1, errorRead: Int32 = -1
        switch errorOutput {
        case .inherit: break
        case .output: stderrFd = stdoutFd
        case .capture:
            let (r, w) = try pipe()
            stderrFd = w
            errorRead = r
            childFds.append(w)
            parentFds.append(r)
        }
        let path = searchPath ? "/usr/bin/env" : command[0]
        let argv = (searchPath ? ["/usr/bin/env"] + command : command).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for p in argv + envp { free(p) }
        }
        let (rc, pid) = Spawner.shared.run { () -> (Int32, pid_t) in
            var pid: pid_t = 0
            let rc = (argv + [nil]).withUnsafeBufferPointer { a in
                (envp + [nil]).withUnsafeBufferPointer { e in
                    cspawn_start(&pid, path, a.baseAddress, e.baseAddress, workingDirectory, stdinFd, stdoutFd, stderrFd)
                }
            }
            return (rc, pid)
        }
        guard rc == 0 else { throw fail(rc) }
        for fd in childFds { close(fd) }
        let child = ChildProcess(pid: pid, inputFd: inputWrite, outputFd: outputRead, errorFd: errorRead)
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

    /// Sends `signal` to the child's process group (the child and whatever it started without
    /// leaving the group), unless the child has already ended: until it is reaped its pid, and so
    /// the group's id, cannot be reused.
    public func sendToGroup(signal: Int32) {
        state.withLock { s in
            if !s.exited { kill(-pid, signal) }
        }
    }

    /// Writes all of `bytes` to the child's standard input (`input: .pipe`), blocking while the
    /// pipe is full. False when there is no input pipe, it was closed, or the child closed its
    /// end (the write then fails with EPIPE: the emulator ignores SIGPIPE). Writes from several
    /// threads never interleave.
    @discardableResult
    public func writeInput(_ bytes: [UInt8]) -> Bool {
        inputFd.withLock { fd in
            guard fd >= 0 else { return false }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }  // trap-ok: the loop runs only for a non-empty buffer
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return false }
            }
            return true
        }
    }

    /// Closes the child's standard input (it reads end of file). Idempotent.
    public func closeInput() {
        inputFd.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// How the child ended, or nil while it runs.
    public var currentTermination: Termination? { state.withLock { $0.termination } }

    /// Blocks the calling thread until the child has ended.
    public func waitUntilExit() -> Termination {
        let semaphore = DispatchSemaphore(value: 0)
        if let t = terminationOrWaiting(on: semaphore) { return t }
        semaphore.wait()
        return state.withLock { $0.termination! }  // trap-ok: the semaphore is signalled after termination is set
    }

    /// Blocks the calling thread until the child has ended or `timeoutSeconds` have passed; nil
    /// on timeout.
    public func waitUntilExit(timeoutSeconds: Double) -> Termination? {
        let semaphore = DispatchSemaphore(value: 0)
        if let t = terminationOrWaiting(on: semaphore) { return t }
        if semaphore.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            // Leave the waiters (or take the signal that raced with the timeout).
            return state.withLock { s in
                s.blockedWaiters.removeAll { $0 === semaphore }
                return s.termination
            }
        }
        return state.withLock { $0.termination }
    }

    /// The termination if the child has ended; else `semaphore` is signalled when it does.
    private func terminationOrWaiting(on semaphore: DispatchSemaphore) -> Termination? {
        state.withLock { s -> Termination? in
            if let t = s.termination { return t }
            s.blockedWaiters.append(semaphore)
            return nil
        }
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
    public func readOutput() -> [UInt8] { readChunk(\.outputFd) }

    /// The same for standard error captured with `errorOutput: .capture`.
    public func readErrorOutput() -> [UInt8] { readChunk(\.errorFd) }

    private func readChunk(_ which: WritableKeyPath<State, Int32>) -> [UInt8] {
        let fd = state.withLock { $0[keyPath: which] }
        guard fd >= 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { return Array(buffer[0..<n]) }
            if n < 0 && errno == EINTR { continue }
            state.withLock { s in
                if s[keyPath: which] == fd {
                    close(fd)
                    s[keyPath: which] = -1
                }
            }
            return []
        }
    }

    /// Reads `chunks` (e.g. `readOutput`) on a new thread until the end of the output, passing
    /// each line (without its newline; a last line without one too) to `body` in order, then
    /// calls `atEnd`.
    public static func forEachLine(
        of chunks: @escaping @Sendable () -> [UInt8], name: String = "child-output",
        atEnd: (@Sendable () -> Void)? = nil, _ body: @escaping @Sendable (String) -> Void
    ) {
        BackgroundThread.detach(name: name, stackSize: 256 * 1024) {
            var buffer: [UInt8] = []
            while true {
                let chunk = chunks()
                if chunk.isEmpty {
                    if !buffer.isEmpty { body(String(decoding: buffer, as: UTF8.self)) }
                    atEnd?()
                    return
                }
                buffer.append(contentsOf: chunk)
                var start = 0
                while let nl = buffer[start...].firstIndex(of: 10) {
                    body(String(decoding: buffer[start..<nl], as: UTF8.self))
                    start = nl + 1
                }
                buffer.removeFirst(start)
            }
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
            defer {
                s.waiters = []
                s.blockedWaiters = []
            }
            return (s.waiters, s.blockedWaiters)
        }
        for w in waiters { w.resume(returning: termination) }
        for b in blocked { b.signal() }
        onExit?(termination)
    }
}

/// The one thread every child is started from (see `ChildProcess`): it lives as long as the
/// emulator, so a child's `PR_SET_PDEATHSIG` fires when the emulator dies and not before. Jobs wait
/// in a `Mutex`-guarded queue; a semaphore wakes the thread, another tells the caller it is done.
private final class Spawner: Sendable {
    static let shared = Spawner()
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let wake = DispatchSemaphore(value: 0)

    private init() {
        BackgroundThread.detach(name: "child-spawner", stackSize: 256 * 1024) { [self] in
            while true {
                wake.wait()
                let next = jobs.withLock { q -> (@Sendable () -> Void)? in q.isEmpty ? nil : q.removeFirst() }
                next?()
            }
        }
    }

    /// Runs `body` on the spawner thread and returns its result; blocks the caller meanwhile.
    func run<T: Sendable>(_ body: @escaping () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let job = UncheckedJob(body)
        jobs.withLock {
            $0.append {
                let r = job.body()
                result.withLock { $0 = r }
                done.signal()
            }
        }
        wake.signal()
        done.wait()
        return result.withLock { $0! }  // trap-ok: the job sets the result before signalling
    }
}

/// Carries a non-`Sendable` closure (it captures the caller's C buffers) to the spawner thread;
/// safe because the caller blocks until the closure has run.
private struct UncheckedJob<T>: @unchecked Sendable {
    let body: () -> T
    init(_ body: @escaping () -> T) { self.body = body }
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
    /// An inline script argument (`python -c <script>`) is named by its size, not spelled out.
    public var description: String {
        let reason = String(cString: strerror(code))
        let dir = workingDirectory.map { " in '\($0)'" } ?? ""
        return "cannot start '\(Self.shown(command))'\(dir): \(reason)"
    }

    /// The command for a message: arguments over 200 bytes or with a line break (inline scripts)
    /// become `<N-byte script>`.
    public static func shown(_ command: [String]) -> String {
        command.map { a in a.utf8.count > 200 || a.contains("\n") ? "<\(a.utf8.count)-byte script>" : a }.joined(separator: " ")
    }
}
