import EmulatorCore

/// The sessions of one `WebChannelServer` and what bounds them: a count per peer and, oldest
/// first, the sessions that never attached a backchannel (all of them, and per peer), which the
/// maintenance pass reaps after `unattachedTimeout` and a handshake at a cap evicts.
///
/// A value type: the server keeps it behind its `Mutex`. Every change goes through these methods,
/// so the counts and queues always describe exactly the sessions in the table.
struct WebChannelSessionTable {
    /// Why a handshake is refused.
    enum Refusal: Equatable {
        /// The table holds `maxSessions`, every one with a backchannel attached at some point.
        case table(limit: Int)
        /// The peer holds `maxSessionsPerPeer`, every one attached at some point.
        case peer(WebChannelPeer, limit: Int)
    }

    /// What `admit` did.
    enum Admission {
        /// The session is in; close the evicted sessions (outside the lock).
        case admitted(evicted: [WebChannelSession])
        /// The session is not in.
        case refused(Refusal)
    }

    private struct Entry {
        let session: WebChannelSession
        let peer: WebChannelPeer
        var attached = false
    }

    private var entries: [String: Entry] = [:]
    private var perPeer: [WebChannelPeer: Int] = [:]
    private var unattached = WebChannelUnattachedQueue()
    private var unattachedByPeer: [WebChannelPeer: WebChannelUnattachedQueue] = [:]
    /// Whether the server's maintenance task runs.
    var ticking = false

    /// Sessions in the table.
    var count: Int { entries.count }

    /// Sessions of `peer`.
    func count(of peer: WebChannelPeer) -> Int { perPeer[peer] ?? 0 }

    /// Sessions that never attached a backchannel.
    var unattachedCount: Int { unattached.count }

    /// The session `id`.
    func session(_ id: String) -> WebChannelSession? { entries[id]?.session }

    /// Every session.
    var sessions: [WebChannelSession] { entries.values.map(\.session) }

    /// Why a handshake from `peer` would be refused now, if it would: checked before the service
    /// opens a stream, so a refused handshake costs nothing more. A cap with a never-attached
    /// session under it admits (by eviction).
    func refusal(for peer: WebChannelPeer, _ c: WebChannelConfiguration) -> Refusal? {
        if count(of: peer) >= c.maxSessionsPerPeer, unattachedByPeer[peer]?.first == nil {
            return .peer(peer, limit: c.maxSessionsPerPeer)
        }
        if entries.count >= c.maxSessions, unattached.first == nil { return .table(limit: c.maxSessions) }
        return nil
    }

    /// Adds `session` for `peer`, opened at `now`. At the peer's share the peer's oldest
    /// never-attached session makes room, at the table's cap the oldest never-attached session of
    /// anyone: a client that holds sessions without using them loses them, and cannot lock out a
    /// browser that does use its own. Refused when there is no such session to evict.
    mutating func admit(_ session: WebChannelSession, peer: WebChannelPeer, now: UInt64, _ c: WebChannelConfiguration) -> Admission {
        // A repeated id comes only from an injected `makeSessionId`; refused like a full table, as before.
        guard entries[session.id] == nil else { return .refused(.table(limit: c.maxSessions)) }
        if let refusal = refusal(for: peer, c) { return .refused(refusal) }
        var evicted: [WebChannelSession] = []
        if count(of: peer) >= c.maxSessionsPerPeer, let oldest = unattachedByPeer[peer]?.first, let s = remove(oldest.id) {
            evicted.append(s)
        }
        if entries.count >= c.maxSessions, let oldest = unattached.first, let s = remove(oldest.id) {
            evicted.append(s)
        }
        entries[session.id] = Entry(session: session, peer: peer)
        perPeer[peer, default: 0] += 1
        unattached.append(session.id, openedAt: now)
        unattachedByPeer[peer, default: WebChannelUnattachedQueue()].append(session.id, openedAt: now)
        return .admitted(evicted: evicted)
    }

    /// The session `id`, now counted as attached (a backchannel GET found it): it is no longer
    /// reaped early nor evicted.
    mutating func attach(_ id: String) -> WebChannelSession? {
        guard let e = entries[id] else { return nil }
        if !e.attached {
            entries[id]?.attached = true
            dropUnattached(id, e.peer)
        }
        return e.session
    }

    /// Removes the session `id` from the table (the caller closes it).
    @discardableResult
    mutating func remove(_ id: String) -> WebChannelSession? {
        guard let e = entries.removeValue(forKey: id) else { return nil }
        let left = (perPeer[e.peer] ?? 1) - 1
        perPeer[e.peer] = left > 0 ? left : nil
        if !e.attached { dropUnattached(id, e.peer) }
        return e.session
    }

    /// Removes the sessions that have not attached a backchannel within `timeout` nanoseconds of
    /// opening, as of `now` (the caller closes them). Oldest first, so it stops at the first young
    /// one: entries enter in order of their `now`, read under the lock.
    mutating func removeUnattached(now: UInt64, timeout: UInt64) -> [WebChannelSession] {
        var out: [WebChannelSession] = []
        while let e = unattached.first, MonotonicClock.elapsed(since: e.openedAt, now) >= timeout {
            guard let s = remove(e.id) else {
                unattached.remove(e.id)  // cannot happen: the queue holds only ids in the table
                continue
            }
            out.append(s)
        }
        return out
    }

    /// Empties the table; returns what it held (the caller closes it).
    mutating func removeAll() -> [WebChannelSession] {
        let all = sessions
        entries = [:]
        perPeer = [:]
        unattached = WebChannelUnattachedQueue()
        unattachedByPeer = [:]
        return all
    }

    private mutating func dropUnattached(_ id: String, _ peer: WebChannelPeer) {
        unattached.remove(id)
        unattachedByPeer[peer]?.remove(id)
        if unattachedByPeer[peer]?.count == 0 { unattachedByPeer[peer] = nil }
    }
}
