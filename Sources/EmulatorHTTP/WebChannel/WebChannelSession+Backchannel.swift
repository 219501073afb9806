import EmulatorCore

/// The backchannel half of a session: attaching a GET (the older one ends), its steps (write
/// what is unsent, wait, end), and serving it until it ends, its client goes away or it is replaced.
extension WebChannelSession {
    /// What the attached backchannel does next.
    enum Step {
        /// Write these arrays as one chunk; `last`: then end the response.
        case write([[UInt8]], last: Bool)
        /// Nothing to write: wait.
        case wait
        /// The GET was replaced or the session ended.
        case end
    }

    /// Attaches a new backchannel GET (the older one ends) after acknowledging `ack`; everything
    /// after the acknowledged arrays is (re)sent on it. Returns its generation, nil when the
    /// session has ended.
    func attach(ack: Int?, longPoll: Bool, timeout: UInt64) -> UInt64? {
        let now = configuration.now()
        let (g, old, wake) = state.withLock { s -> (UInt64?, CheckedContinuation<Void, Never>?, Bool) in
            guard !s.closed else { return (nil, nil, false) }
            let wake = ack.map { Self.acknowledge(&s, $0, configuration) } ?? false
            s.generation += 1
            s.attached = s.generation
            s.sentThrough = s.acked
            s.unsentBytes = s.queuedBytes
            s.longPoll = longPoll
            s.pollDeadline = now &+ timeout
            s.lastWrite = now
            s.lastSeen = now
            s.progressAt = now
            s.noopDue = false
            s.body = nil
            s.writing = false
            s.endDue = false
            defer { s.writer = nil }
            return (s.generation, s.writer, wake)
        }
        old?.resume()
        if wake { wakeProducers(all: false) }
        return g
    }

    /// Detaches the GET of generation `g` (it ended or its client went away).
    func detach(_ g: UInt64) {
        let now = configuration.now()
        state.withLock { s in
            guard s.attached == g else { return }
            s.attached = nil
            s.writer = nil
            s.body = nil
            s.lastSeen = now
        }
    }

    /// The next step of the GET of generation `g`.
    func step(_ g: UInt64) -> Step {
        let now = configuration.now()
        let (step, wake) = state.withLock { s -> (Step, Bool) in
            guard !s.closed, s.attached == g, !s.endDue else { return (.end, false) }
            guard !s.writing else { return (.wait, false) }  // a sender is writing on this GET
            if s.noopDue {
                s.noopDue = false
                Self.append(&s, [Array("[\"noop\"]".utf8)], now: now)
            }
            guard let (arrays, last) = Self.take(&s, now: now, configuration) else { return (.wait, false) }
            s.writing = true
            return (.write(arrays, last: last), s.unsentBytes <= configuration.sendBufferBytes && !s.producers.isEmpty)
        }
        if wake { wakeProducers(all: false) }
        return step
    }

    /// Takes the unsent arrays for one chunk (at most `chunkBytes`, at least one) and whether the
    /// GET ends after it (a long poll with nothing left, or enough written and unacknowledged).
    static func take(_ s: inout State, now: UInt64, _ configuration: WebChannelConfiguration) -> ([[UInt8]], last: Bool)? {
        guard s.unsentBytes > 0, let first = s.queue.first else { return nil }
        var i = s.sentThrough + 1 - first.id
        guard i >= 0, i < s.queue.count else {  // cannot happen: ids run contiguously from `acked + 1`
            s.unsentBytes = 0
            return nil
        }
        var arrays: [[UInt8]] = []
        var bytes = 0
        while i < s.queue.count, arrays.isEmpty || bytes + s.queue[i].text.count <= configuration.chunkBytes {
            arrays.append(s.queue[i].text)
            bytes += s.queue[i].text.count
            s.sentThrough = s.queue[i].id
            i += 1
        }
        s.unsentBytes -= bytes
        s.lastWrite = now
        s.progressAt = now
        let unacknowledged = s.queuedBytes - s.unsentBytes
        return (arrays, (s.longPoll && s.unsentBytes == 0) || unacknowledged >= configuration.maxUnacknowledgedBytes)
    }

    /// A chunk a sender writes on the attached GET while the GET waits.
    struct DirectWrite {
        let generation: UInt64
        let body: any HTTPBodyWriter
        let arrays: [[UInt8]]
        let last: Bool
    }

    /// Claims the attached GET for a sender when the GET is idle (parked, nobody writing), taking
    /// what is unsent; nil when the GET should be woken instead.
    static func claimDirectWrite(_ s: inout State, now: UInt64, _ configuration: WebChannelConfiguration) -> DirectWrite? {
        guard let g = s.attached, s.writer != nil, let body = s.body, !s.writing, !s.endDue, !s.noopDue,
            let (arrays, last) = take(&s, now: now, configuration)
        else { return nil }
        s.writing = true
        return DirectWrite(generation: g, body: body, arrays: arrays, last: last)
    }

    /// Writes a claimed chunk, then hands the GET back: it is woken when it must end (its last
    /// chunk, or the client went away) or has more to do.
    func write(_ w: DirectWrite) async {
        var failed = false
        do { try await w.body.write(WebChannelFraming.chunk(arrays: w.arrays)) } catch { failed = true }
        let waiting = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.attached == w.generation else { return nil }
            s.writing = false
            if w.last || failed { s.endDue = true }
            guard s.endDue || s.unsentBytes > 0 || s.noopDue else { return nil }
            defer { s.writer = nil }
            return s.writer
        }
        waiting?.resume()
    }

    /// The GET of generation `g` finished writing its chunk.
    func finishWrite(_ g: UInt64) {
        state.withLock { s in
            if s.attached == g { s.writing = false }
        }
    }

    /// Waits until the GET of generation `g` has something to do (arrays, a keep-alive, its end).
    func waitForWork(_ g: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.closed || s.attached != g || s.endDue || Task.isCancelled { return true }
                    if !s.writing, s.unsentBytes > 0 || s.noopDue { return true }
                    s.writer = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: { [weak self] in
            let w = self?.state.withLock { s -> CheckedContinuation<Void, Never>? in
                defer { s.writer = nil }
                return s.writer
            }
            w?.resume()
        }
    }

    /// Serves the GET of generation `g` until it ends, its client goes away or it is replaced.
    func serveBackchannel(_ g: UInt64, _ writer: any HTTPBodyWriter) async {
        state.withLock { s in
            if s.attached == g { s.body = writer }
        }
        defer { detach(g) }
        while !Task.isCancelled {
            switch step(g) {
            case .end:
                return
            case .wait:
                await waitForWork(g)
            case .write(let arrays, let last):
                do { try await writer.write(WebChannelFraming.chunk(arrays: arrays)) } catch { return }
                finishWrite(g)
                if last { return }
            }
        }
    }
}
