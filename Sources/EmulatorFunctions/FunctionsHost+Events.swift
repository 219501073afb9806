import EmulatorCore

extension FunctionsHost {
    /// True when the project has a Firestore document trigger: the store's observer asks first,
    /// so a commit nobody triggers on builds no event JSON (it runs inside the database lock).
    public func hasDocumentTriggers(project: String) -> Bool {
        state.withLock { s in
            s[project]?.functions.values.contains { if case .document = $0.definition.trigger { true } else { false } } ?? false
        }
    }

    /// Queues the document changes of one commit for the matching triggers, in order.
    /// `changes` are (database-relative path, before, after) in REST document JSON.
    public func documentsChanged(
        project: String, time: Timestamp, changes: [(path: String, before: JSON?, after: JSON?)],
        principal: (type: String, id: String)? = nil
    ) {
        let regs = registered(project)
        guard regs.contains(where: { if case .document = $0.definition.trigger { true } else { false } }) else { return }
        let env = environments.environment(for: project)
        var pending: [Pending] = []
        for c in changes {
            // A JSON null counts as absent (callers may build changes with JSON literals).
            let before = c.before == .null ? nil : c.before, after = c.after == .null ? nil : c.after
            let kind: DocumentEventType = before == nil ? .created : (after == nil ? .deleted : .updated)
            for r in regs {
                guard case .document(let pattern, let event) = r.definition.trigger, event == kind || event == .written,
                    let params = DocumentPattern.match(pattern, c.path)
                else { continue }
                var ev = BackgroundEvent(
                    id: env.ids.string(length: 20, alphabet: IDGenerator.alphanumerics), type: "document.\(kind.rawValue)",
                    time: time, subject: c.path, params: params, before: before, after: after)
                ev.principal = principal
                pending.append(Pending(function: r.definition.name, event: ev, attempt: 1, notBefore: 0))
            }
        }
        enqueue(project, pending)
    }

    /// Queues a user created/deleted event (`event` is `created` or `deleted`) with the user record.
    public func userEvent(project: String, event: String, time: Timestamp, uid: String, user: JSON) {
        let regs = registered(project).filter { $0.definition.trigger == .auth(event: event) }
        guard !regs.isEmpty else { return }
        let env = environments.environment(for: project)
        enqueue(
            project,
            regs.map { r in
                Pending(
                    function: r.definition.name,
                    event: BackgroundEvent(
                        id: env.ids.string(length: 20, alphabet: IDGenerator.alphanumerics),
                        type: "user.\(event)", time: time, subject: uid, params: ["uid": uid],
                        before: user, after: nil), attempt: 1, notBefore: 0)
            })
    }

    func enqueue(_ project: String, _ items: [Pending]) {
        guard !items.isEmpty else { return }
        let start = state.withLock { s -> Bool in
            var p = s.removeValue(forKey: project) ?? ProjectState()
            defer { s[project] = p }
            p.queue.append(contentsOf: items)
            if p.draining { return false }
            p.draining = true
            return true
        }
        if start { Task.detached { [self] in await drain(project) } }
    }

    /// Delivers queued events one at a time (commit order); a failed event with retries is put
    /// back at the head after a backoff, so later events for the same document wait for it.
    func drain(_ project: String) async {
        while true {
            // In place: a copy of the project's state out of the dictionary and back copied the
            // whole queue on every event.
            let next = state.withLock { s -> Pending? in
                guard let item = s[project]?.queue.popFirst() else {
                    s[project]?.draining = false
                    return nil
                }
                s[project]?.running += 1
                return item
            }
            guard let item = next else { return }
            let now = MonotonicClock.nanoseconds()
            if item.notBefore > now { try? await Task.sleep(nanoseconds: item.notBefore - now) }
            await deliver(project, item)
            state.withLock { $0[project]?.running -= 1 }
        }
    }

    func deliver(_ project: String, _ item: Pending) async {
        guard let reg = lookup(project, item.function) else { return }
        do {
            var event = item.event
            event.attempt = item.attempt
            try await invoke(
                project, reg, trigger: item.event.type, eventId: item.event.id, attempt: item.attempt,
                input: item.event.json, event: item.event
            ) { [event] ctx in
                try await reg.backend.event(reg.definition, event, ctx)
            }
        } catch {
            guard reg.definition.retry else { return }
            if item.attempt >= (reg.definition.maxAttempts ?? maxAttempts) {
                var r = logs(project: project).last
                r?.outcome = "gave-up"
                if let r { record(project, r) }
                logger.log(.error, "functions", "\(item.function): event \(item.event.id) failed \(item.attempt) times; giving up")
                return
            }
            let delay = retryBaseDelay * Double(1 << min(item.attempt - 1, 10))
            var again = item
            again.attempt += 1
            again.notBefore = MonotonicClock.deadline(afterSeconds: delay)
            state.withLock { $0[project]?.queue.pushFront(again) }
        }
    }

    /// Waits until nothing is queued or running for `project`, up to `timeout` seconds.
    /// Returns nil when idle, else what is still pending.
    public func idle(project: String, timeout: Double) async -> [String]? {
        let deadline = MonotonicClock.deadline(afterSeconds: timeout)
        while true {
            let pending = state.withLock { s -> [String] in
                guard let ps = s[project] else { return [] }
                var out = ps.queue.map { "\($0.function) \($0.event.type) \($0.event.subject) (attempt \($0.attempt))" }
                if ps.running > 0 { out.insert("\(ps.running) invocation(s) running", at: 0) }
                if ps.delayed > 0 { out.append("\(ps.delayed) task(s) waiting for their schedule time") }
                return out
            }
            if pending.isEmpty { return nil }
            if MonotonicClock.nanoseconds() >= deadline { return pending }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}

extension FunctionsHost: ProjectStateParticipant {
    /// `functions`.
    public var participantName: String { "functions" }
    /// Drops queued events and invocation logs (registrations stay).
    public func resetProject(_ projectId: String) { clear(projectId) }
    /// Drops every project's queue and logs.
    public func resetAll() { clearAll() }
    /// Functions keep no data worth snapshotting: an empty marker.
    public func captureProject(_ projectId: String) -> any Sendable { 0 }
    /// Restoring drops queued events (they belonged to the discarded timeline).
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws { clear(projectId) }
}
