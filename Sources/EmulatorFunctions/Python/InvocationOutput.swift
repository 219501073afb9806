import EmulatorCore

/// A line a function process wrote. While the process handles a request from the host, the
/// launcher's stream wrapper prefixes each line written on that request's thread with
/// `\u{1E}<invocation id>\u{1F}`, and ends the request with the line `\u{1D}END` on both streams,
/// so lines are attributed to the invocation that wrote them even when requests overlap. Pure.
public struct OutputLine: Sendable, Equatable {
    /// The invocation that wrote it, when tagged.
    public var invocation: String?
    /// The text (without the tag).
    public var text: String
    /// The end-of-invocation marker.
    public var isEnd: Bool

    /// A decoded line.
    public init(invocation: String?, text: String, isEnd: Bool) {
        self.invocation = invocation
        self.text = text
        self.isEnd = isEnd
    }

    /// Decodes a line from the launcher.
    public init(_ line: String) {
        var s = Substring(line)
        invocation = nil
        isEnd = false
        if s.first == "\u{1E}", let sep = s.firstIndex(of: "\u{1F}") {
            invocation = String(s[s.index(after: s.startIndex)..<sep])
            s = s[s.index(after: sep)...]
            isEnd = s == "\u{1D}END"
        }
        text = String(s)
    }
}

/// What one invocation wrote: lines, and whether both streams have closed it. Behind a `Mutex`;
/// `waitForEnd` suspends until both end markers arrived (or a deadline passes).
final class InvocationOutput: Sendable {
    private struct State {
        var lines: [String] = []
        var ended: Set<String> = []
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    /// Lines kept per invocation (a chatty function's log is cut, with a note).
    static let maxLines = 1000

    /// Adds a line (up to `maxLines`).
    func append(_ line: String) {
        state.withLock { s in
            if s.lines.count < Self.maxLines {
                s.lines.append(line)
            } else if s.lines.count == Self.maxLines {
                s.lines.append("… (more output not kept)")
            }
        }
    }

    /// One stream (`stdout`/`stderr`) closed the invocation.
    func end(_ stream: String) {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.ended.insert(stream)
            guard s.ended.count >= 2 else { return [] }
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    /// Releases waiters (the process ended: no marker will come).
    func abandon() {
        end("stdout")
        end("stderr")
    }

    /// The lines so far.
    var lines: [String] { state.withLock { $0.lines } }

    /// Waits until both streams ended this invocation, at most `seconds`.
    func waitForEnd(_ seconds: Double) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let done = self.state.withLock { s -> Bool in
                        if s.ended.count >= 2 { return true }
                        s.waiters.append(c)
                        return false
                    }
                    if done { c.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: MonotonicClock.nanoseconds(inSeconds: seconds))
                self.abandon()
            }
            await group.next()
            group.cancelAll()
        }
    }
}
