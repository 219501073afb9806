import CEpoll
import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

/// Accepting connections within the global limits (loop 0 accepts for every loop): the connection
/// cap over all loops (`ConnectionAdmission`; a connection beyond it is answered 503 and closed),
/// a bounded number of accepts per turn, handing each admitted connection to the next loop in
/// turn, and a pause with a growing delay when descriptors run out (a listening socket stays readable while `accept` fails, so
/// retrying at once would spin). Also returns freed memory to the system after bursts.
extension EventLoop {
    /// Connections accepted per listener per turn of the loop (the rest wait for the next turn).
    static let acceptsPerTurn = 64
    /// The first pause after `accept` ran out of descriptors (doubling up to `maxAcceptBackoff`).
    static let minAcceptBackoff: UInt64 = 50_000_000
    /// The longest pause.
    static let maxAcceptBackoff: UInt64 = 1_000_000_000
    /// Descriptors never handed to peers: the process's own files, pipes and the runtime need
    /// some at any moment (libdispatch's thread-pool monitor opens `/proc` files and stops the
    /// process when it cannot), so accepting pauses this far below the open-file limit, as it
    /// does when `accept` itself fails.
    static let reservedDescriptors = 16
    /// The lowest descriptor number at which accepting pauses (the open-file limit minus the
    /// reserve; descriptors are handed out lowest first, so a number this high means few are left).
    static let acceptCeiling: Int32 = {
        var lim = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim) == 0 else { return Int32.max }
        return Int32(clamping: Int(clamping: lim.rlim_cur) - reservedDescriptors)
    }()

    /// The cap in force: the configured one as is, else the default lowered to three quarters
    /// of the open-file limit minus a few for the process's own files.
    static func connectionCap(_ configured: Int?) -> Int {
        if let configured { return max(1, configured) }
        var lim = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim) == 0 else { return HTTPServerConfiguration.defaultMaxConnections }
        let files = Int(clamping: lim.rlim_cur)
        return max(8, min(HTTPServerConfiguration.defaultMaxConnections, files / 4 * 3 - 16))
    }

    /// Accepts what is waiting on a listener, within the limits.
    func acceptAll(_ lfd: Int32) {
        for _ in 0..<Self.acceptsPerTurn {
            var storage = sockaddr_storage()
            var len = UInt32(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) { cepoll_accept(lfd, $0, &len) }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    pauseAccepting()
                    return
                default: return  // EAGAIN: nothing more waiting
                }
            }
            acceptBackoff = Self.minAcceptBackoff
            guard stopDeadline == nil, admission.admit() else {
                refuse(fd)
                continue
            }
            // Near the open-file limit: this connection is served, the next ones wait in the
            // backlog until descriptors are free again (the reserve stays the process's own).
            let nearLimit = fd >= Self.acceptCeiling
            let remote = Socket.describe(&storage)
            let target = peers.isEmpty ? self : peers[nextPeer % peers.count]
            nextPeer &+= 1
            if target === self {
                adopt(fd, remote: remote)
            } else if !target.send(.adopt(fd: fd, remote: remote)) {
                close(fd)  // that loop has ended (the server is stopping)
                admission.release()
            }
            if nearLimit {
                pauseAccepting()
                return
            }
        }
    }

    /// Starts serving an admitted connection on this loop (closes it when the loop is stopping).
    func adopt(_ fd: Int32, remote: String) {
        guard stopDeadline == nil else {
            close(fd)
            admission.release()
            return
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let c = Connection(
            fd: fd, id: nextId, remote: remote,
            parser: HTTPRequestParser(
                maxHeaderBytes: config.maxHeaderBytes, maxBodyBytes: config.maxBodyBytes,
                streamingPolicy: config.streamingPolicy), bodyBudget: bodyBudget)
        nextId += 1
        c.idleDeadline = MonotonicClock.deadline(afterSeconds: config.idleTimeout)
        connections[fd] = c
        c.events = cepoll_in | cepoll_rdhup
        register(fd, events: c.events)
    }

    /// Answers a connection beyond the cap with 503 (best effort: the socket is new, so its send
    /// buffer is empty) and closes it.
    private func refuse(_ fd: Int32) {
        let bytes = Self.tooManyConnections(maxConnections)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    /// The answer to a connection beyond the cap.
    static func tooManyConnections(_ cap: Int) -> [UInt8] {
        var r = errorResponse(
            status: 503,
            message: "Too many connections: the server holds at most \(cap) at once (maxConnections). Close idle connections or raise the limit.")
        r.headers.add("Retry-After", "1")
        return r.wireBytes(head: false, close: true)
    }

    /// Stops watching the listeners for a while: descriptors ran out. Clients wait in the
    /// listen backlog meanwhile and are accepted once descriptors are free again.
    func pauseAccepting() {
        for fd in listeners { modify(fd, events: 0) }
        acceptPausedUntil = MonotonicClock.nanoseconds() + acceptBackoff
        acceptBackoff = min(acceptBackoff * 2, Self.maxAcceptBackoff)
    }

    /// Watches the listeners again.
    func resumeAccepting() {
        acceptPausedUntil = nil
        for fd in listeners { modify(fd, events: cepoll_in) }
    }

    /// Once many connections or streams have closed, returns the allocator's free memory to the
    /// system a second later (on a thread of its own: trimming a large heap takes a while). The
    /// memory a burst of clients made the process take is then given back after they leave.
    func trimMemoryIfDue(_ now: UInt64) {
        if trimAt == nil, closedSinceTrim >= 64 || streamQuota.closedSinceTrim >= 1000 {
            trimAt = now + 1_000_000_000
        }
        guard let at = trimAt, now >= at else { return }
        trimAt = nil
        closedSinceTrim = 0
        streamQuota.closedSinceTrim = 0
        MemoryTrimmer.trimSoon()
    }
}

/// Runs `malloc_trim` on a background thread, one at a time. The running flag is behind a
/// `Mutex`.
enum MemoryTrimmer {
    private static let running = Mutex(false)

    /// Starts a trim unless one is running.
    static func trimSoon() {
        let start = running.withLock { r -> Bool in
            if r { return false }
            r = true
            return true
        }
        guard start else { return }
        BackgroundThread.detach(name: "memory-trim") {
            _ = cepoll_trim_memory()
            running.withLock { $0 = false }
        }
    }
}
