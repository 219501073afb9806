import EmulatorCore

extension PubSubService: ProjectStateParticipant {
    /// `pubsub`.
    public var participantName: String { "pubsub" }

    /// Drops the project's topics, subscriptions, messages and snapshots (journaled first).
    public func resetProject(_ projectId: String) throws {
        try replace(projectId, with: PubSubProjectState())
    }

    /// Drops every project's data.
    public func resetAll() throws {
        for p in projectIds { try resetProject(p) }
    }

    /// The project's `PubSubProjectState` (a copy-on-write value). Leases are part of it, so a
    /// restore also brings back what was outstanding; their deadlines then pass and they are
    /// redelivered.
    public func captureProject(_ projectId: String) -> any Sendable { snapshot(project: projectId) }

    /// Restores a captured `PubSubProjectState`.
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {
        guard let st = snapshot as? PubSubProjectState else { throw EmulatorError.invalidArgument("The snapshot does not hold Pub/Sub data.") }
        try replace(projectId, with: st)
    }

    /// Replaces the project's state wholesale, journaled as a `replace` entry; open streams re-check.
    func replace(_ project: String, with next: PubSubProjectState) throws {
        let journal = hooks.withLock { $0.journal }
        try state.withLock { all in
            if all[project] == nil && !next.hasData { return }
            try journal?(project, ["op": "replace", "data": Self.exported(next)])
            if next.hasData || next.lastSerial > 0 { all[project] = next } else { all[project] = nil }
        }
        wakeups.wake(prefix: "projects/\(project)/")
    }
}

extension PubSubService: PersistentParticipant {
    /// Topics, subscriptions with their unacknowledged messages (and retained acknowledged ones),
    /// snapshots and the publish counter. Leases are not exported: after an import every
    /// unacknowledged message is deliverable.
    public func exportProject(_ projectId: String) -> JSON { Self.exported(snapshot(project: projectId)) }

    /// Replaces the project's data with an export (validated first).
    public func importProject(_ projectId: String, _ json: JSON) throws {
        try ResourceId.project(projectId)
        try replace(projectId, with: try Self.imported(json))
    }

    /// Projects that hold topics, subscriptions or snapshots.
    public var projectsWithData: [String] { state.withLock { all in all.filter { $0.value.hasData }.keys.sorted() } }

    /// Re-applies one journal entry (idempotent: publishes already applied are skipped by their
    /// serial, acks and resources are whole values).
    public func replay(project: String, entry: JSON) throws {
        try ResourceId.project(project)
        let now = self.now(project)
        try state.withLock { all in
            var ps = all[project] ?? PubSubProjectState()
            try Self.apply(entry, to: &ps, now: now, limits: limits)
            if ps.hasData || ps.lastSerial > 0 { all[project] = ps } else { all[project] = nil }
        }
    }

    /// Applies one journal entry; `limits` are the live service's, so acknowledged entries are
    /// trimmed at the same points as they were live and a replayed seek brings back the same.
    static func apply(_ entry: JSON, to ps: inout PubSubProjectState, now: Timestamp, limits: PubSubLimits) throws {
        switch entry["op"]?.stringValue ?? "" {
        case "replace":
            ps = try imported(entry["data"] ?? .object([:]))
        case "batch":
            for e in entry["entries"]?.arrayValue ?? [] { try apply(e, to: &ps, now: now, limits: limits) }
        case "topic":
            guard let t = entry["topic"], let name = t["name"]?.stringValue else { throw EmulatorError.invalidArgument("topic entry without a name") }
            ps.topics[name] = t
        case "deleteTopic":
            applyDeleteTopic(&ps, entry["name"]?.stringValue ?? "")
        case "subscription":
            guard let r = entry["subscription"], let name = r["name"]?.stringValue else {
                throw EmulatorError.invalidArgument("subscription entry without a name")
            }
            let config = try PubSubSubscriptionConfig(r)
            var s = ps.subscriptions[name] ?? PubSubSubscriptionState(resource: r, config: config)
            s.resource = r
            s.config = config
            if entry["clear"]?.boolValue == true { s.backlog = PubSubBacklog() }
            ps.subscriptions[name] = s
        case "deleteSubscription":
            ps.subscriptions[entry["name"]?.stringValue ?? ""] = nil
        case "snapshot":
            let snap = try importedSnapshot(entry["snapshot"] ?? .null)
            if let name = snap.resource["name"]?.stringValue { ps.snapshots[name] = snap }
        case "deleteSnapshot":
            ps.snapshots[entry["name"]?.stringValue ?? ""] = nil
        case "publish":
            let messages = try (entry["messages"]?.arrayValue ?? []).map { try PublishedMessage(json: $0) }.filter { $0.serial > ps.lastSerial }
            if !messages.isEmpty { _ = fanOut(&ps, topic: entry["topic"]?.stringValue ?? "", messages, now: now, limits: limits) }
        case "ack":
            guard let sub = entry["subscription"]?.stringValue, var s = ps.subscriptions.removeValue(forKey: sub) else { return }
            let ids = Set((entry["messageIds"]?.arrayValue ?? []).compactMap(\.stringValue))
            for i in s.backlog.entries.indices where ids.contains(s.backlog.entries[i].message.id) { s.backlog.markAcked(i, at: now) }
            s.backlog.compact(now: now, config: s.config, room: ps.subscriptions.retainRoom(limits))
            ps.subscriptions[sub] = s
        case "seek":
            applySeek(&ps, entry, now: now, limits: limits)
        default:
            throw EmulatorError.invalidArgument("unknown Pub/Sub journal entry '\(entry["op"]?.stringValue ?? "?")'")
        }
    }

    /// The export form of a project.
    static func exported(_ ps: PubSubProjectState) -> JSON {
        var subs: [JSON] = []
        for name in ps.subscriptions.keys.sorted() {
            guard let s = ps.subscriptions[name] else { continue }
            let kept = s.backlog.entries.map { e -> JSON in
                guard case .acked = e.state, case .object(var o) = e.message.stored else { return e.message.stored }
                o["acked"] = true
                return .object(o)
            }
            subs.append(["resource": s.resource, "messages": .array(kept)])
        }
        return [
            "topics": .array(ps.topics.keys.sorted().compactMap { ps.topics[$0] }),
            "subscriptions": .array(subs),
            "snapshots": .array(ps.snapshots.keys.sorted().compactMap { ps.snapshots[$0].map(exported) }),
            "lastSerial": .int(ps.lastSerial),
        ]
    }

    /// The export form of a snapshot.
    static func exported(_ s: PubSubSnapshotState) -> JSON {
        ["resource": s.resource, "messages": .array(s.messages.map(\.stored)), "serial": .int(s.serial)]
    }

    static func importedSnapshot(_ j: JSON) throws -> PubSubSnapshotState {
        guard let r = j["resource"], r["name"]?.stringValue != nil else {
            throw EmulatorError.invalidArgument("A Pub/Sub snapshot needs its resource.")
        }
        return PubSubSnapshotState(
            resource: r, messages: try (j["messages"]?.arrayValue ?? []).map { try PublishedMessage(json: $0) },
            serial: j["serial"]?.intValue ?? 0)
    }

    /// Reads an export back, validating every resource.
    static func imported(_ j: JSON) throws -> PubSubProjectState {
        var ps = PubSubProjectState()
        for t in j["topics"]?.arrayValue ?? [] {
            guard let name = t["name"]?.stringValue else { throw EmulatorError.invalidArgument("A Pub/Sub topic in the export has no name.") }
            _ = try PubSubName(name, kind: .topics)
            ps.topics[name] = t
        }
        for s in j["subscriptions"]?.arrayValue ?? [] {
            guard let r = s["resource"], let name = r["name"]?.stringValue else {
                throw EmulatorError.invalidArgument("A Pub/Sub subscription in the export has no name.")
            }
            _ = try PubSubName(name, kind: .subscriptions)
            var state = PubSubSubscriptionState(resource: r, config: try PubSubSubscriptionConfig(r))
            for m in s["messages"]?.arrayValue ?? [] {
                state.backlog.append(try PublishedMessage(json: m))
                if m["acked"]?.boolValue == true { state.backlog.markAcked(state.backlog.entries.count - 1, at: Timestamp(seconds: 0)) }
            }
            ps.subscriptions[name] = state
        }
        for s in j["snapshots"]?.arrayValue ?? [] {
            let snap = try importedSnapshot(s)
            if let name = snap.resource["name"]?.stringValue { ps.snapshots[name] = snap }
        }
        ps.lastSerial = j["lastSerial"]?.intValue ?? 0
        return ps
    }
}
