import EmulatorCore

/// A Pub/Sub message as published (`data` raw bytes).
public struct PubSubMessage: Sendable, Equatable {
    /// Payload.
    public var data: [UInt8]
    /// Attributes.
    public var attributes: [String: String]
    /// Ordering key, when the publisher set one.
    public var orderingKey: String?

    /// Creates a message.
    public init(data: [UInt8], attributes: [String: String] = [:], orderingKey: String? = nil) {
        self.data = data
        self.attributes = attributes
        self.orderingKey = orderingKey
    }
}

extension FunctionsHost {
    /// Queues one run of the scheduled function `name` as if Cloud Scheduler fired at `scheduleTime`
    /// (the admin API's "run now", and the schedule runner). Returns the event id.
    public func runScheduled(project: String, name: String, scheduleTime: Timestamp) throws -> String {
        guard let reg = lookup(project, name), case .scheduled = reg.definition.trigger else {
            throw HttpsError(.notFound, "Scheduled function \(name) does not exist in project \(project).")
        }
        let env = environments.environment(for: project)
        let id = env.ids.string(length: 20, alphabet: IDGenerator.alphanumerics)
        enqueue(
            project,
            [
                Pending(
                    function: name,
                    event: BackgroundEvent(
                        id: id, type: "schedule.run", time: scheduleTime, subject: name,
                        params: [:], before: nil, after: nil), attempt: 1, notBefore: 0)
            ])
        platformHooks.withLock { $0 }?.scheduled.call(project, name, reg.definition.region, scheduleTime)
        return id
    }

    /// Queues messages the Pub/Sub service published on `topic` (bare id) for every function
    /// subscribed to it: each message is the google.pubsub.v1.PubsubMessage in proto3 JSON with
    /// `messageId` and `publishTime` set; the event id is the message id.
    public func published(project: String, topic: String, messages: [JSON]) {
        let subscribers = registered(project).filter { $0.definition.trigger == .pubsub(topic: topic) }.sorted {
            $0.definition.name < $1.definition.name
        }
        guard !subscribers.isEmpty else { return }
        var pending: [Pending] = []
        for m in messages {
            guard case .object(var message) = m, let id = message["messageId"]?.stringValue,
                let time = message["publishTime"]?.stringValue.flatMap({ Timestamp(rfc3339: $0) })
            else { continue }
            // firebase-functions reads both; Pub/Sub's JSON omits them when empty.
            if message["data"] == nil { message["data"] = "" }
            if message["attributes"] == nil { message["attributes"] = .object([:]) }
            for s in subscribers {
                pending.append(
                    Pending(
                        function: s.definition.name,
                        event: BackgroundEvent(
                            id: id, type: "pubsub.published", time: time, subject: topic,
                            params: [:], before: nil, after: .object(message)),
                        attempt: 1, notBefore: 0))
            }
        }
        enqueue(project, pending)
    }

    /// Queues `messages` for every function subscribed to `topic`; returns one message id per
    /// message (the same id for each subscriber, as Pub/Sub delivers one message many times).
    /// (In-process use without the Pub/Sub service; the emulator publishes through `PubSubService`.)
    public func publish(project: String, topic: String, messages: [PubSubMessage], time: Timestamp) -> [String] {
        let env = environments.environment(for: project)
        let subscribers = registered(project).filter { $0.definition.trigger == .pubsub(topic: topic) }.sorted {
            $0.definition.name < $1.definition.name
        }
        var pending: [Pending] = []
        var ids: [String] = []
        for m in messages {
            let id = env.ids.digits(16)
            ids.append(id)
            var message: UTF8Dictionary<JSON> = [
                "data": .string(Base64.encode(m.data)), "attributes": .object(m.attributes.mapValues { .string($0) }),
                "messageId": .string(id), "publishTime": .string(time.rfc3339()),
            ]
            if let k = m.orderingKey { message["orderingKey"] = .string(k) }
            for s in subscribers {
                pending.append(
                    Pending(
                        function: s.definition.name,
                        event: BackgroundEvent(
                            id: id, type: "pubsub.published", time: time, subject: topic,
                            params: [:], before: nil, after: .object(message)),
                        attempt: 1, notBefore: 0))
            }
        }
        enqueue(project, pending)
        return ids
    }

    /// Queues a Cloud Storage object event (`finalized`, `deleted`, `metadataUpdated`, `archived`)
    /// for every function watching `bucket`; `object` is the object's Cloud Storage JSON (what the
    /// CloudEvent carries as data). Events of one object are delivered in order (subject
    /// `bucket/name`). Returns the event id, nil when no function watches.
    @discardableResult
    public func storageEvent(project: String, bucket: String, event: String, object: JSON, time: Timestamp) -> String? {
        let watchers = registered(project).filter { $0.definition.trigger == .storage(bucket: bucket, event: event) }.sorted {
            $0.definition.name < $1.definition.name
        }
        guard !watchers.isEmpty else { return nil }
        let id = environments.environment(for: project).ids.digits(16)
        let subject = bucket + "/" + (object["name"]?.stringValue ?? "")
        enqueue(
            project,
            watchers.map { w in
                Pending(
                    function: w.definition.name,
                    event: BackgroundEvent(
                        id: id, type: "storage.\(event)", time: time, subject: subject,
                        params: [:], before: nil, after: object), attempt: 1, notBefore: 0)
            })
        return id
    }

    /// Queues a task for the task-queue function `queue` (`task` is `{"body": base64, "headers": {...}}`
    /// plus the task `name`). A task whose `scheduleTime` lies ahead on the project clock waits that
    /// long (in wall time) before it joins the queue. Returns the task id.
    public func enqueueTask(
        project: String, queue: String, taskId: String?, body: [UInt8], headers: [String: String],
        scheduleTime: Timestamp?
    ) throws -> String {
        guard let reg = lookup(project, queue), reg.definition.trigger == .taskQueue else {
            throw HttpsError(.notFound, "Queue \(queue) has no task-queue function in project \(project).")
        }
        let env = environments.environment(for: project)
        let id = taskId ?? env.ids.digits(19)
        let now = env.clock.now()
        let when = scheduleTime ?? now
        let task: JSON = [
            "body": .string(Base64.encode(body)), "headers": .object(headers.mapValues { .string($0) }), "taskId": .string(id),
            "queue": .string(queue), "scheduleTime": .string(when.rfc3339()),
        ]
        let item = Pending(
            function: reg.definition.name,
            event: BackgroundEvent(
                id: id, type: "task.dispatched", time: when, subject: queue,
                params: [:], before: nil, after: task), attempt: 1, notBefore: 0)
        let delay = Double(when.microseconds - now.microseconds) / 1e6
        if delay <= 0 {
            enqueue(project, [item])
        } else {
            state.withLock { $0[project, default: ProjectState()].delayed += 1 }
            Task.detached { [self] in
                try? await Task.sleep(nanoseconds: MonotonicClock.nanoseconds(inSeconds: min(delay, 86_400)))
                state.withLock { $0[project]?.delayed -= 1 }
                enqueue(project, [item])
            }
        }
        return id
    }

    /// Queues the runs of scheduled functions that fell due on each project's clock since the last
    /// tick (one run per function per tick: missed runs are coalesced, as Cloud Scheduler does not
    /// catch up). The first tick only starts the count.
    public func tickSchedules() {
        let projects = state.withLock { Array($0.keys) }
        for project in projects {
            let now = environments.environment(for: project).clock.now()
            let due = state.withLock { s -> [(String, Timestamp)] in
                guard var ps = s[project] else { return [] }
                var out: [(String, Timestamp)] = []
                for r in ps.functions.values {
                    guard case .scheduled(let text, let tz) = r.definition.trigger, let schedule = try? CronSchedule(text, timeZone: tz) else {
                        continue
                    }
                    let name = r.definition.name
                    guard let last = ps.scheduleCursor[name] else {
                        ps.scheduleCursor[name] = now
                        continue
                    }
                    if now > last, let fire = schedule.lastFire(after: last, notAfter: now) { out.append((name, fire)) }
                    ps.scheduleCursor[name] = now
                }
                s[project] = ps
                return out
            }
            for (name, fire) in due.sorted(by: { $0.0 < $1.0 }) { _ = try? runScheduled(project: project, name: name, scheduleTime: fire) }
        }
    }
}
