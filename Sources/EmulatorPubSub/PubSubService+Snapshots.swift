import EmulatorCore

/// Snapshots and Seek.
extension PubSubService {
    /// Snapshot fields UpdateSnapshot may change.
    static let updatableSnapshotFields: Set<String> = ["labels", "expire_time"]

    /// CreateSnapshot: captures the subscription's unacknowledged messages; it expires when the
    /// oldest of them would leave a 7-day retention (production's rule), at the latest 7 days on.
    public func createSnapshot(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "name"), kind: .snapshots)
        let subName = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        return try mutate(name.project) { ps, commit in
            guard let s = ps.subscriptions[subName.full] else { throw EmulatorError.notFound("Subscription does not exist") }
            guard ps.snapshots[name.full] == nil else { throw EmulatorError.alreadyExists("Snapshot already exists") }
            guard s.config.topic != "_deleted-topic_" else {
                throw EmulatorError.failedPrecondition("The subscription's topic was deleted: it cannot be snapshotted.")
            }
            // Checked before the copy: a snapshot copies its subscription's backlog, so 1,000
            // snapshots of a full subscription would hold half a billion messages.
            guard ps.snapshots.count < limits.maxSnapshots else {
                throw EmulatorError(
                    .resourceExhausted,
                    "Project \(name.project) holds \(ps.snapshots.count) snapshots, the emulator's limit (\(limits.maxSnapshots)); delete some first."
                )
            }
            let held = ps.snapshots.values.reduce(0) { $0 + $1.messages.count }
            guard held + s.backlog.unacked <= limits.maxSnapshotMessages else {
                throw EmulatorError(
                    .resourceExhausted,
                    "Project \(name.project)'s snapshots hold \(held) messages and this one would add \(s.backlog.unacked), past the emulator's limit (\(limits.maxSnapshotMessages)); delete some first."
                )
            }
            let now = self.now(name.project)
            let messages = s.backlog.unackedMessages
            let oldest = messages.first?.publishTime ?? now
            var resource: UTF8Dictionary<JSON> = [
                "name": .string(name.full), "topic": .string(s.config.topic),
                "expireTime": .string(oldest.adding(seconds: 7 * 86_400).rfc3339()),
            ]
            if let labels = request["labels"], case .object(let l) = labels, !l.isEmpty { resource["labels"] = labels }
            let snap = PubSubSnapshotState(resource: .object(resource), messages: messages, serial: ps.lastSerial)
            try commit(["op": "snapshot", "snapshot": Self.exported(snap)])
            ps.snapshots[name.full] = snap
            return .object(resource)
        }
    }

    /// GetSnapshot.
    public func getSnapshot(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "snapshot"), kind: .snapshots)
        return try read(name.project) { ps in
            guard let s = ps.snapshots[name.full] else { throw EmulatorError.notFound("Snapshot does not exist") }
            return s.resource
        }
    }

    /// ListSnapshots.
    public func listSnapshots(_ request: JSON) throws -> JSON {
        let project = try PubSubName.project(PubSubRequest.string(request, "project"))
        return try read(project) { ps in
            let (names, next) = try PubSubRequest.page(ps.snapshots.keys.sorted(), request)
            var out: UTF8Dictionary<JSON> = ["snapshots": .array(names.compactMap { ps.snapshots[$0]?.resource })]
            if let next { out["nextPageToken"] = .string(next) }
            return .object(out)
        }
    }

    /// UpdateSnapshot (labels, expire time).
    public func updateSnapshot(_ request: JSON) throws -> JSON {
        let snap = request["snapshot"] ?? .object([:])
        let name = try PubSubName(PubSubRequest.string(snap, "name"), kind: .snapshots)
        let paths = PubSubRequest.maskPaths(request)
        guard !paths.isEmpty else {
            throw EmulatorError.invalidArgument("The update_mask in the UpdateSnapshotRequest must be set, and must contain a non-empty paths list.")
        }
        for p in paths where !Self.updatableSnapshotFields.contains(p) {
            throw EmulatorError.invalidArgument(
                "Invalid update_mask provided in the UpdateSnapshotRequest: \(p) is not a known Snapshot field or cannot be updated.")
        }
        let incoming = PubSubRequest.jsonKeys(snap)
        return try mutate(name.project) { ps, commit in
            guard var s = ps.snapshots[name.full], case .object(var stored) = s.resource else {
                throw EmulatorError.notFound("Snapshot does not exist")
            }
            for p in paths {
                let key = PubSubRequest.camelCase(p)
                if key == "expireTime", let t = incoming[key]?.stringValue, Timestamp(rfc3339: t) == nil {
                    throw EmulatorError.invalidArgument("Invalid expire_time: must be an RFC 3339 timestamp.")
                }
                stored[key] = incoming[key].flatMap { $0.isNull ? nil : $0 }
            }
            s.resource = .object(stored)
            try commit(["op": "snapshot", "snapshot": Self.exported(s)])
            ps.snapshots[name.full] = s
            return s.resource
        }
    }

    /// DeleteSnapshot.
    public func deleteSnapshot(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "snapshot"), kind: .snapshots)
        return try mutate(name.project) { ps, commit in
            guard ps.snapshots[name.full] != nil else { throw EmulatorError.notFound("Snapshot does not exist") }
            try commit(["op": "deleteSnapshot", "name": .string(name.full)])
            ps.snapshots[name.full] = nil
            return .object([:])
        }
    }

    /// Seek to a time (messages published before it count as acknowledged, those at or after it
    /// as not, as far as the subscription still holds them: acknowledged ones only with
    /// `retain_acked_messages`) or to a snapshot (its messages and everything the topic published
    /// after it become unacknowledged again). Outstanding leases end.
    public func seek(_ request: JSON) throws -> JSON {
        let name = try PubSubName(PubSubRequest.string(request, "subscription"), kind: .subscriptions)
        let snapshot = PubSubRequest.string(request, "snapshot")
        let time = request["time"]?.stringValue
        guard snapshot.isEmpty != (time == nil) else {
            throw EmulatorError.invalidArgument("Seek needs exactly one of 'time' and 'snapshot'.")
        }
        var entry: JSON = ["op": "seek", "subscription": .string(name.full)]
        if let time {
            guard Timestamp(rfc3339: time) != nil else { throw EmulatorError.invalidArgument("Invalid time: must be an RFC 3339 timestamp.") }
            entry[member: "time"] = .string(time)
        } else {
            let snap = try PubSubName(snapshot, kind: .snapshots)
            entry[member: "snapshot"] = .string(snap.full)
        }
        try mutate(name.project) { ps, commit in
            guard var s = ps.subscriptions[name.full] else { throw EmulatorError.notFound("Subscription does not exist") }
            if let snap = entry["snapshot"]?.stringValue {
                guard let st = ps.snapshots[snap] else { throw EmulatorError.notFound("Snapshot does not exist") }
                guard st.resource["topic"]?.stringValue == s.config.topic else {
                    throw EmulatorError.failedPrecondition("The snapshot's topic is not the subscription's topic.")
                }
            }
            // Applied to a copy first (the entries are copied once; a seek walks them all
            // anyway): what it adds is known exactly, and a refusal leaves the original.
            let before = s.backlog
            let room = ps.subscriptions.retainRoom(limits, stored: s.backlog)
            Self.seek(&s, entry, snapshots: ps.snapshots, now: self.now(name.project), room: room)
            if let refusal = Self.seekRefusal(ps, name: name.full, before: before, after: s.backlog, project: name.project, limits) {
                throw refusal
            }
            try commit(entry)
            ps.subscriptions[name.full] = s
        }
        wakeups.wake(name.full)
        return .object([:])
    }

    /// Applies a seek entry on journal replay.
    static func applySeek(_ ps: inout PubSubProjectState, _ entry: JSON, now: Timestamp, limits: PubSubLimits) {
        guard let sub = entry["subscription"]?.stringValue, var s = ps.subscriptions.removeValue(forKey: sub) else { return }
        seek(&s, entry, snapshots: ps.snapshots, now: now, room: ps.subscriptions.retainRoom(limits))
        ps.subscriptions[sub] = s
    }

    /// Applies a seek entry to one subscription (live and on journal replay); `room` bounds the
    /// acknowledged entries it then retains (`PubSubBacklog.compact`).
    static func seek(
        _ s: inout PubSubSubscriptionState, _ entry: JSON, snapshots: [String: PubSubSnapshotState], now: Timestamp, room: PubSubBacklog.RetainRoom
    ) {
        if let t = entry["time"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) }) {
            for i in s.backlog.entries.indices {
                if s.backlog.entries[i].message.publishTime < t { s.backlog.markAcked(i, at: now) } else { s.backlog.markUnacked(i) }
            }
        } else if let name = entry["snapshot"]?.stringValue, let snap = snapshots[name] {
            let held = Set(snap.messages.map(\.id))
            var present: Set<String> = []
            for i in s.backlog.entries.indices {
                let m = s.backlog.entries[i].message
                present.insert(m.id)
                if held.contains(m.id) || m.serial > snap.serial { s.backlog.markUnacked(i) } else { s.backlog.markAcked(i, at: now) }
            }
            // Snapshot messages this subscription no longer holds come back, in publish order.
            let missing = snap.messages.filter { !present.contains($0.id) }
            if !missing.isEmpty {
                var rebuilt = PubSubBacklog()
                rebuilt.nextLease = s.backlog.nextLease
                var merged = s.backlog.entries.filter { !$0.isAcked }.map(\.message) + missing
                merged.sort { $0.serial < $1.serial }
                for m in merged { rebuilt.append(m) }
                rebuilt.nextSeq = max(rebuilt.nextSeq, s.backlog.nextSeq)
                s.backlog = rebuilt
            }
        }
        s.backlog.compact(now: now, config: s.config, room: room)
    }
}
