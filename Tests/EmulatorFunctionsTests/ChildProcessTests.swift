import EmulatorCore
import Testing

@testable import EmulatorFunctions

#if canImport(Glibc)
import Glibc
#endif

/// Reads a child's whole captured output as text.
private func output(_ p: ChildProcess) -> String {
    var bytes: [UInt8] = []
    while case let chunk = p.readOutput(), !chunk.isEmpty { bytes += chunk }
    return String(decoding: bytes, as: UTF8.self)
}

/// Runs `body` on a fresh thread that blocks `signals`, as Dispatch and Swift-concurrency
/// threads do, and waits for its result.
private func onThreadBlocking<T: Sendable>(_ signals: [Int32], _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { cont in
        BackgroundThread.detach {
            var set = sigset_t()
            sigemptyset(&set)
            for s in signals { sigaddset(&set, s) }
            pthread_sigmask(SIG_BLOCK, &set, nil)
            do { cont.resume(returning: try body()) } catch { cont.resume(throwing: error) }
        }
    }
}

@Suite struct ChildProcessTests {
    @Test func exitCodeAndCapturedOutput() async throws {
        let p = try ChildProcess.start(command: ["sh", "-c", "echo hello; exit 3"], environment: ["PATH": "/usr/bin:/bin"], captureOutput: true)
        #expect(output(p) == "hello\n")
        let t = await p.termination()
        #expect(t == .exited(3))
        #expect(t.status == 3)
        #expect(p.waitUntilExit() == .exited(3))
    }

    @Test func exactlyTheGivenEnvironmentAndWorkingDirectory() async throws {
        let p = try ChildProcess.start(
            command: ["sh", "-c", "pwd; echo \"$ONLY\"; env | wc -l"], environment: ["PATH": "/usr/bin:/bin", "ONLY": "yes"],
            workingDirectory: "/tmp", captureOutput: true)
        let lines = output(p).split(separator: "\n").map { $0.trimming(" ") }
        // `sh` adds PWD (and may add SHLVL, _) to what it was given.
        #expect(lines.count == 3 && lines[0] == "/tmp" && lines[1] == "yes" && (Int(lines[2]) ?? 99) <= 5, "\(lines)")
        #expect(await p.termination() == .exited(0))
    }

    @Test func aMissingWorkingDirectoryIsAnErrorNamingIt() {
        #expect {
            _ = try ChildProcess.start(command: ["true"], environment: [:], workingDirectory: "/nonexistent-dir-for-test")
        } throws: { error in
            "\(error)" == "cannot start 'true' in '/nonexistent-dir-for-test': No such file or directory"
        }
    }

    @Test func aMissingCommandExitsWith127() async throws {
        let p = try ChildProcess.start(command: ["no-such-command-for-test"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(await p.termination().status == 127)
    }

    @Test func terminateEndsTheChildWithSIGTERM() async throws {
        let p = try ChildProcess.start(command: ["sleep", "30"], environment: ["PATH": "/usr/bin:/bin"])
        p.terminate()
        let t = await p.termination()
        #expect(t == .signalled(SIGTERM))
        #expect(t.status == 128 + SIGTERM)
        p.terminate()  // after the exit: no signal to a pid that may be reused
    }

    /// The emulator ignores SIGPIPE and its threads block signals; a child must inherit neither,
    /// or SIGTERM could not stop a worker and a closed pipe would not end a writer.
    @Test func childStartsWithNoBlockedOrIgnoredSignals() async throws {
        signal(SIGPIPE, SIG_IGN)
        let text = try await onThreadBlocking([SIGTERM, SIGINT]) { () -> String in
            let p = try ChildProcess.start(
                command: ["grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"], environment: ["PATH": "/usr/bin:/bin"],
                captureOutput: true)
            return output(p)
        }
        let masks = text.split(separator: "\n").compactMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        #expect(masks.count == 2, "\(text)")
        // Bit n-1 is signal n. glibc's posix_spawn sets its two internal signals (32, 33) to
        // SIG_IGN in every child it starts; the standard signals 1-31 are what must be clean.
        #expect(masks.allSatisfy { $0 & 0x7FFF_FFFF == 0 }, "\(text)")
    }

    @Test func childInheritsOnlyStandardDescriptors() async throws {
        // Deliberately not close-on-exec, and above 2 whatever else the process has closed: a
        // descriptor 0-2 is the child's standard one and exists there by design.
        let null = open("/dev/null", O_RDONLY)
        let fd = fcntl(null, F_DUPFD, 10)
        close(null)
        defer { close(fd) }
        try #require(fd >= 10)
        let p = try ChildProcess.start(command: ["sh", "-c", "test -e /proc/$$/fd/\(fd)"], environment: ["PATH": "/usr/bin:/bin"])
        let t = await p.termination()
        #expect(t == .exited(1), "descriptor \(fd): \(t)")
    }
}
