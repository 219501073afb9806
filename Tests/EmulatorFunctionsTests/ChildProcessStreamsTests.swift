import Dispatch
import EmulatorCore
import Testing

@testable import EmulatorFunctions

#if canImport(Glibc)
import Glibc
#endif

/// Reads a stream of a child to its end as text.
private func drain(_ next: () -> [UInt8]) -> String {
    var bytes: [UInt8] = []
    while case let chunk = next(), !chunk.isEmpty { bytes += chunk }
    return String(decoding: bytes, as: UTF8.self)
}

/// Whether `name` is an executable on the usual PATH.
private func onPath(_ name: String) -> Bool {
    ["/usr/local/bin", "/usr/bin", "/bin"].contains { access("\($0)/\(name)", X_OK) == 0 }
}

private let path = ["PATH": "/usr/local/bin:/usr/bin:/bin"]

/// What the Python codebases need from `ChildProcess` beyond workers: an input pipe, standard
/// error apart or merged, `/dev/null` input, direct paths, group signals, timed waits, and a
/// starting thread that outlives the caller's (for `PR_SET_PDEATHSIG`).
@Suite struct ChildProcessStreamsTests {
    @Test func inputPipeReachesTheChildAndClosingItEndsIt() async throws {
        signal(SIGPIPE, SIG_IGN)
        let p = try ChildProcess.start(
            command: ["sh", "-c", "while read l; do echo \"got $l\"; done; echo eof"], environment: path,
            input: .pipe, captureOutput: true)
        #expect(p.writeInput(Array("one\ntwo\n".utf8)))
        p.closeInput()
        p.closeInput()  // idempotent
        #expect(!p.writeInput(Array("late\n".utf8)))
        #expect(drain(p.readOutput) == "got one\ngot two\neof\n")
        #expect(await p.termination() == .exited(0))
    }

    /// With the emulator's standard input closed, the input pipe's read end would be created as
    /// descriptor 0 itself; it must still reach the child as its standard input.
    @Test func pipesWorkWhenTheEmulatorRunsWithoutStandardInput() async throws {
        signal(SIGPIPE, SIG_IGN)
        let saved = dup(0)
        close(0)
        let started = Result {
            try ChildProcess.start(command: ["sh", "-c", "read l; echo \"got $l\""], environment: path, input: .pipe, captureOutput: true)
        }
        restoreStandardInput(from: saved)
        let p = try started.get()
        #expect(p.writeInput(Array("x\n".utf8)))
        p.closeInput()
        #expect(drain(p.readOutput) == "got x\n")
        #expect(await p.termination() == .exited(0))
    }

    @Test func writingToAChildThatIsGoneFailsInsteadOfKilling() async throws {
        signal(SIGPIPE, SIG_IGN)
        let p = try ChildProcess.start(command: ["true"], environment: path, input: .pipe)
        _ = await p.termination()
        #expect(!p.writeInput(Array(repeating: 65, count: 100_000)))
    }

    @Test func standardErrorApartOrMerged() async throws {
        let apart = try ChildProcess.start(
            command: ["sh", "-c", "echo out; echo err >&2"], environment: path, captureOutput: true,
            errorOutput: .capture)
        let err = Mutex("")
        let done = DispatchSemaphore(value: 0)
        ChildProcess.forEachLine(of: apart.readErrorOutput, atEnd: { done.signal() }) { line in err.withLock { $0 += line + ";" } }
        #expect(drain(apart.readOutput) == "out\n")
        done.wait()
        #expect(err.withLock { $0 } == "err;")
        let merged = try ChildProcess.start(
            command: ["sh", "-c", "echo out; echo err >&2"], environment: path, captureOutput: true,
            errorOutput: .output)
        #expect(drain(merged.readOutput) == "out\nerr\n")
        #expect(await merged.termination() == .exited(0))
    }

    @Test func nullDeviceInputReadsEndOfFile() async throws {
        let p = try ChildProcess.start(command: ["sh", "-c", "cat; echo done"], environment: path, input: .nullDevice, captureOutput: true)
        #expect(drain(p.readOutput) == "done\n")
    }

    @Test func forEachLineSplitsChunksAndKeepsAnUnterminatedLastLine() async throws {
        let p = try ChildProcess.start(command: ["printf", "a\\nbb\\n\\nccc"], environment: path, captureOutput: true)
        let lines = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        ChildProcess.forEachLine(of: p.readOutput, atEnd: { done.signal() }) { l in lines.withLock { $0.append(l) } }
        done.wait()
        #expect(lines.withLock { $0 } == ["a", "bb", "", "ccc"])
    }

    @Test func aDirectPathRunsWithoutEnvEvenWithAnEqualsSign() async throws {
        let dir = "/tmp/childprocess-a=b-\(getpid())"
        mkdir(dir, 0o755)
        defer {
            unlink(dir + "/prog")
            rmdir(dir)
        }
        let script = "#!/bin/sh\necho \"direct $1\"\n"
        let fd = open(dir + "/prog", O_WRONLY | O_CREAT | O_TRUNC, 0o755)
        _ = Array(script.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let p = try ChildProcess.start(command: [dir + "/prog", "x"], environment: path, searchPath: false, captureOutput: true)
        #expect(drain(p.readOutput) == "direct x\n")
        #expect(await p.termination() == .exited(0))
    }

    @Test func aMissingProgramWithADirectPathIsAnError() {
        #expect {
            _ = try ChildProcess.start(command: ["/nonexistent/python"], environment: [:], searchPath: false)
        } throws: { error in
            "\(error)" == "cannot start '/nonexistent/python': No such file or directory"
        }
    }

    @Test func timedWaitAndGroupSignal() async throws {
        // The shell's background sleep stays in the child's process group.
        let p = try ChildProcess.start(command: ["sh", "-c", "sleep 30 & echo $!; wait"], environment: path, captureOutput: true)
        var first: [UInt8] = []
        while !first.contains(10) { first += p.readOutput() }
        let grandchild = Int32(String(decoding: first.prefix { $0 != 10 }, as: UTF8.self))!
        #expect(p.waitUntilExit(timeoutSeconds: 0.1) == nil)
        #expect(p.currentTermination == nil)
        p.sendToGroup(signal: SIGKILL)
        #expect(p.waitUntilExit(timeoutSeconds: 10) == .signalled(SIGKILL))
        #expect(p.currentTermination == .signalled(SIGKILL))
        // The grandchild died too (it is re-parented and reaped by init; give it a moment).
        var gone = false
        for _ in 0..<100 where !gone {
            gone = kill(grandchild, 0) != 0 || procStatus(grandchild)?.contains("State:\tZ") == true
            if !gone { usleep(20_000) }
        }
        #expect(gone)
    }

    /// Linux signals a child's `PR_SET_PDEATHSIG` when the thread that started it ends: children
    /// are started from a thread that lives as long as the process, so one started from a
    /// short-lived thread survives that thread.
    @Test(.enabled(if: onPath("python3"))) func aChildOutlivesTheThreadThatAskedForIt() async throws {
        let armed =
            "import ctypes, signal, sys, time; ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0); print('armed', flush=True); time.sleep(30)"
        // The starting thread waits until the child has armed its signal, then ends.
        let (p, text) = try await withCheckedThrowingContinuation { (c: CheckedContinuation<(ChildProcess, String), any Error>) in
            BackgroundThread.detach(name: "short-lived") {
                c.resume(
                    with: Result {
                        let p = try ChildProcess.start(command: ["python3", "-c", armed], environment: path, captureOutput: true)
                        var text: [UInt8] = []
                        while !text.contains(10) {
                            let chunk = p.readOutput()
                            if chunk.isEmpty { break }
                            text += chunk
                        }
                        return (p, String(decoding: text, as: UTF8.self))
                    })
            }
        }
        #expect(text == "armed\n")
        // The starting thread has long ended by now.
        #expect(p.waitUntilExit(timeoutSeconds: 0.5) == nil)
        p.terminate()
        #expect(await p.termination() == .signalled(SIGTERM))
    }
}

/// `/proc/<pid>/status`, or nil when the process is gone.
private func procStatus(_ pid: Int32) -> String? {
    let fd = open("/proc/\(pid)/status", O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
}

/// Puts `saved` back as descriptor 0 without clobbering: while 0 was closed, another thread
/// (the child's reaper names itself through `/proc/thread-self/comm`) may briefly hold it, and
/// a `dup2` over that would hand its later `close` our standard input. `F_DUPFD` takes 0 only
/// when it is free, so wait for the other holder instead.
private func restoreStandardInput(from saved: Int32) {
    for _ in 0..<2_000 {
        let fd = fcntl(saved, F_DUPFD, 0)
        if fd == 0 { break }
        if fd > 0 { close(fd) }
        usleep(1_000)
    }
    close(saved)
}
