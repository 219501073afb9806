import EmulatorCore

/// Admission of handlers: at most `HTTP2Limits.maxWorkingHandlers` handlers of one connection
/// work on an unfinished answer at once, and none starts while the connection's queued output is
/// over its budget (the peer is not reading); the other new streams wait, in order, before their
/// handler starts. The cooperative thread pool is shared by every client, so without this one
/// connection opening a thousand expensive requests at once would queue them all ahead of
/// everyone else's work, and hold all their answers in memory.
///
/// A handler stops counting once it has ended its side (END_STREAM or a reset), its stream has
/// closed, or `workingHandlerGrace` has passed while the connection's output flows (a stream
/// that lives on, such as a listener or an event stream, or a long poll, must not hold a slot
/// forever, and a handler waiting on another stream of the same connection cannot deadlock it).
extension HTTP2Connection {
    /// Queues a new stream's handler; starts it at once when a slot is free.
    func admit(_ id: UInt32) {
        waitingToStart.append(id)
        startWaitingHandlers()
    }

    /// Starts waiting handlers while slots are free.
    func startWaitingHandlers() {
        while working.count < limits.maxWorkingHandlers && waitingHead < waitingToStart.count
            && sendBudget.queued < sendBudget.limit
        {
            let id = waitingToStart[waitingHead]
            waitingHead += 1
            guard let s = streams[id] else { continue }  // reset before it started: nothing to run
            working[id] = clock()
            onStream(s.handle, s.remoteClosed)
        }
        if waitingHead == waitingToStart.count {
            waitingToStart.removeAll(keepingCapacity: waitingToStart.capacity <= 64)
            waitingHead = 0
        }
    }

    /// Stream `id`'s handler answered (or the stream is gone): its slot is free.
    func answered(_ id: UInt32) {
        guard working.removeValue(forKey: id) != nil else { return }
        startWaitingHandlers()
    }

    /// Frees the slots of handlers that have worked longer than the grace period without
    /// answering, if streams are waiting for one. The loop calls it a few times a second.
    func expireWorkingHandlers(now: UInt64) {
        guard waitingHead < waitingToStart.count, sendBudget.queued < sendBudget.limit else { return }
        for (id, started) in working.entries where now >= MonotonicClock.deadline(afterSeconds: limits.workingHandlerGrace, from: started) {
            working[id] = nil
        }
        startWaitingHandlers()
    }
}
