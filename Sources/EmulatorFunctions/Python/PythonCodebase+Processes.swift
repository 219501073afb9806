import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

extension PythonCodebase {
    typealias Waiter = CheckedContinuation<(String, Int), any Error>

    // MARK: launcher

    /// Replaces the launcher (its children die with it) and waits until the new one is ready.
    func restartLauncher() async -> Bool {
        let (old, generation, env, waiters) = state.withLock { s -> ((any LauncherChannel)?, Int, [String: String], [Waiter]) in
            s.generation += 1
            s.launcherReady = false
            var w: [Waiter] = []
            for k in s.functions.keys {
                // Calls waiting for a process are served by the new launcher; running ones are gone.
                s.functions[k]?.spawn = nil
                s.functions[k]?.port = nil
                if s.stopped {
                    w += s.functions[k]?.waiters.values ?? [:].values
                    s.functions[k]?.waiters = [:]
                }
            }
            for (id, sp) in s.spawns where sp.exit == nil {
                s.spawns[id]?.exit = "stopped with the launcher"
                for o in sp.open.values { o.abandon() }
            }
            defer { s.launcher = nil }
            return (s.launcher, s.generation, s.environment.common, w)
        }
        for w in waiters { w.resume(throwing: HttpsError(.unavailable, "the emulator is stopping")) }
        if let old { _ = try? await Self.onThread { old.stop() } }
        if state.withLock({ $0.stopped }) { return false }
        let launcher = makeLauncher(config.venv + "/bin/python", env, config.prefork)
        state.withLock { $0.launcher = launcher }
        do {
            try launcher.start { [weak self] ev in self?.handle(ev, generation: generation) }
        } catch {
            fail("cannot start \(config.venv)/bin/python: \(error)")
            return false
        }
        let deadline = MonotonicClock.deadline(afterSeconds: max(config.startTimeoutSeconds, 10))
        while MonotonicClock.nanoseconds() < deadline {
            let (ready, current, stopped) = state.withLock { ($0.launcherReady, $0.generation, $0.stopped) }
            if stopped || current != generation { return false }
            if ready { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        fail("the launcher did not start within \(Int(max(config.startTimeoutSeconds, 10))) s")
        return false
    }

    /// One event from the launcher of `generation` (events of replaced launchers are dropped).
    func handle(_ ev: LauncherEvent, generation: Int) {
        guard state.withLock({ $0.generation == generation && !$0.stopped }) else { return }
        switch ev {
        case .ready(let python, let prefork, let ms, _):
            state.withLock { s in
                s.launcherReady = true
                s.launcherFailures = 0
                s.launcherInfo = "Python \(python), " + (prefork ? "prefork (warm in \(ms) ms)" : "a fresh interpreter per function")
            }
            logger.log(.info, "functions", "\(label): launcher ready (Python \(python)\(prefork ? ", libraries preloaded in \(ms) ms" : ""))")
            spawnPending()
        case .spawned(let id, let pid, let port):
            state.withLock { s in
                s.spawns[id]?.pid = pid
                s.spawns[id]?.adminPort = port
            }
        case .listening(let id, let port):
            state.withLock { $0.spawns[id]?.port = port }
        case .started(let id, let port):
            // Ready means: the module imported and the socket accepts connections.
            BackgroundThread.detach(name: "py-probe", stackSize: 256 * 1024) { [self] in
                if PortProbe.connects(port: port) { started(id, port: port) }
            }
        case .output(let id, let stream, let line):
            route(id, stream, line)
        case .exited(let id, _, let status, let signal):
            exited(id, signal.map { "killed by signal \($0)" } ?? "exit status \(status ?? -1)")
        case .yaml(let id, let json, let error):
            state.withLock { $0.yaml[id] = json.map { .success($0) } ?? .failure(HttpsError(.invalidArgument, error ?? "not YAML")) }
        case .failure(let id, let message):
            logger.log(.error, "functions", "\(label): launcher: \(message)")
            if let id {
                if id.hasPrefix("yaml#") { state.withLock { $0.yaml[id] = .failure(HttpsError(.internal, message)) } } else { exited(id, message) }
            }
        case .closed(let status):
            launcherDied(status)
        }
    }

    /// The launcher ended on its own: its children died with it; start a new one after a backoff.
    func launcherDied(_ status: Int32) {
        let (again, delay) = state.withLock { s -> (Bool, Double) in
            guard !s.stopped else { return (false, 0) }
            s.launcherFailures += 1
            return (s.phase == .ready, min(30, Double(s.launcherFailures)))
        }
        guard again else { return }
        logger.log(
            .warning, "functions",
            "\(label): the launcher exited (status \(status)); its function processes died with it; restarting in \(Int(delay)) s")
        Task.detached { [self] in
            try? await Task.sleep(nanoseconds: MonotonicClock.nanoseconds(inSeconds: delay))
            _ = await restartLauncher()
        }
    }

    // MARK: function processes

    /// The running process of function `name` (spawn id, port), starting it when there is none.
    /// Concurrent callers share one start; a cancelled caller stops waiting (the start goes on).
    func ensureRunning(_ name: String) async throws -> (String, Int) {
        let ticket = state.withLock { s -> Int in
            s.counter += 1
            return s.counter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: Waiter) in
                enum Next { case resume(String, Int), fail(HttpsError), wait }
                let next = state.withLock { s -> Next in
                    guard !s.stopped else { return .fail(HttpsError(.unavailable, "the emulator is stopping")) }
                    guard var slot = s.functions[name] else {
                        return .fail(HttpsError(.notFound, "function \(name) is not served by codebase \(config.name)"))
                    }
                    if let sp = slot.spawn, let port = slot.port { return .resume(sp, port) }
                    if Task.isCancelled { return .fail(HttpsError(.deadlineExceeded, "cancelled while \(name) was starting")) }
                    slot.waiters[ticket] = c
                    s.functions[name] = slot
                    return .wait
                }
                switch next {
                case .resume(let sp, let port): c.resume(returning: (sp, port))
                case .fail(let e): c.resume(throwing: e)
                case .wait: spawnPending()
                }
            }
        } onCancel: { [self] in
            let w = state.withLock { s -> Waiter? in s.functions[name]?.waiters.removeValue(forKey: ticket) }
            w?.resume(throwing: HttpsError(.deadlineExceeded, "cancelled while \(name) was starting"))
        }
    }

    /// Starts a process for every function that has waiters and none starting.
    func spawnPending() {
        let starts = state.withLock { s -> [(any LauncherChannel, String, [String: String])] in
            guard s.launcherReady, let l = s.launcher, !s.stopped else { return [] }
            var out: [(any LauncherChannel, String, [String: String])] = []
            for (name, slot) in s.functions where slot.spawn == nil && (!slot.waiters.isEmpty || config.prestart && s.phase == .ready) {
                s.counter += 1
                let id = "\(name)#\(s.counter)"
                s.functions[name]?.spawn = id
                s.spawns[id] = Spawn(function: name)
                out.append((l, id, s.environment.forFunction(name, signatureType: slot.endpoint.signatureType)))
            }
            return out
        }
        for (launcher, id, env) in starts {
            launcher.send([
                "op": "spawn", "id": .string(id), "kind": "function", "cwd": .string(config.source),
                "env": .object(env.mapValues { .string($0) }),
            ])
            let timeout = config.startTimeoutSeconds
            Task.detached { [self] in
                try? await Task.sleep(nanoseconds: MonotonicClock.nanoseconds(inSeconds: timeout))
                let stuck = state.withLock { s in s.spawns[id]?.exit == nil && s.functions.values.contains { $0.spawn == id && $0.port == nil } }
                if stuck {
                    logger.log(.error, "functions", "\(label): \(id) did not start within \(Int(timeout)) s; stopping it")
                    signal(id, SIGKILL)
                }
            }
        }
    }

    /// Spawn `id` imported its module and accepts connections: its waiting callers go on.
    func started(_ id: String, port: Int) {
        let (name, waiters, ms) = state.withLock { s -> (String?, [Waiter], Double) in
            guard let sp = s.spawns[id], sp.exit == nil, let name = sp.function, var slot = s.functions[name], slot.spawn == id else {
                return (nil, [], 0)
            }
            let waiters = Array(slot.waiters.values)
            slot.port = port
            slot.waiters = [:]
            s.functions[name] = slot
            return (name, waiters, Double(MonotonicClock.elapsed(since: sp.startedAt, MonotonicClock.nanoseconds())) / 1e6)
        }
        guard let name else { return }
        logger.log(.info, "functions", "\(label): \(name) started in \(Int(ms)) ms on port \(port)")
        for w in waiters { w.resume(returning: (id, port)) }
    }

    /// Spawn `id` ended: callers waiting for it fail with its last lines; the next call starts a new one.
    func exited(_ id: String, _ why: String) {
        let (name, waiters, tail, wasRunning, port, outputs) = state.withLock { s -> (String?, [Waiter], [String], Bool, Int?, [InvocationOutput]) in
            guard var sp = s.spawns[id], sp.exit == nil else { return (nil, [], [], false, nil, []) }
            sp.exit = why
            let outputs = Array(sp.open.values)
            s.spawns[id] = sp
            // Keep the records of the last exited processes (their tails explain failed calls).
            let exited = s.spawns.filter { $0.value.exit != nil }
            if exited.count > 64, let oldest = exited.min(by: { $0.value.startedAt < $1.value.startedAt }) { s.spawns[oldest.key] = nil }
            guard let name = sp.function, var slot = s.functions[name], slot.spawn == id else {
                return (sp.function, [], sp.tail, false, sp.port, outputs)
            }
            let running = slot.port != nil
            let waiters = Array(slot.waiters.values)
            slot.spawn = nil
            slot.port = nil
            slot.waiters = [:]
            s.functions[name] = slot
            return (name, waiters, sp.tail, running, sp.port, outputs)
        }
        for o in outputs { o.abandon() }
        if let port { transport.forget(port: port) }
        guard let name else { return }
        let detail = tail.suffix(30).joined(separator: "\n")
        if !waiters.isEmpty {
            let e = HttpsError(.unavailable, "function \(name) failed to start (\(why))" + (detail.isEmpty ? "" : ":\n" + detail))
            logger.log(.error, "functions", "\(label): \(e.message)")
            for w in waiters { w.resume(throwing: e) }
        } else if wasRunning && !state.withLock({ $0.stopped }) {
            logger.log(.warning, "functions", "\(label): \(name)'s process ended (\(why)); the next call starts a new one")
        }
        if config.prestart && !state.withLock({ $0.stopped }) {
            Task.detached { [self] in
                try? await Task.sleep(nanoseconds: 1_000_000_000)
                _ = try? await ensureRunning(name)
            }
        }
    }

    /// Takes spawn `id` out of service now, before it is killed: its exit is reported only once the
    /// launcher has reaped it, and a call made meanwhile would reach the dying process. The next
    /// call starts a new one; `exited` later finds the slot no longer points at `id`.
    func retire(_ id: String) {
        state.withLock { s in
            guard let name = s.spawns[id]?.function, var slot = s.functions[name], slot.spawn == id, slot.port != nil else { return }
            slot.spawn = nil
            slot.port = nil
            s.functions[name] = slot
        }
    }

    /// Sends `sig` to the process group of spawn `id`.
    func signal(_ id: String, _ sig: Int32) {
        guard let l = state.withLock({ $0.launcher }) else { return }
        l.send(["op": "signal", "id": .string(id), "signal": .int(Int64(sig))])
    }

    /// Routes one output line to its invocation and the emulator's log.
    func route(_ id: String, _ stream: String, _ line: String) {
        let parsed = OutputLine(line)
        let (function, target) = state.withLock { s -> (String?, InvocationOutput?) in
            guard var sp = s.spawns[id] else { return ("?", nil) }
            var target: InvocationOutput?
            if let inv = parsed.invocation {
                target = sp.open[inv]
            } else {
                if let death = Self.workerDeath(line) { sp.workerDeaths.append(death) }
                sp.tail.append(line)
                if sp.tail.count > (sp.function == nil ? 400 : 60) { sp.tail.removeFirst() }
                if sp.open.count == 1 { target = sp.open.values.first }
                s.spawns[id] = sp
            }
            return (sp.function, target)
        }
        if parsed.isEnd {
            target?.end(stream)
            return
        }
        target?.append(parsed.text)
        // The SDK's admin server's banner and access lines are noise unless discovery fails.
        logger.log(function == nil ? .debug : .info, "functions", "\(label) \(function ?? "discovery"): \(parsed.text)")
    }

    /// gunicorn's report of a dead worker (`Worker (pid:12) exited with code 7`, `... was sent
    /// SIGKILL!`) as `exit status 7` / `killed by SIGKILL`, else nil.
    static func workerDeath(_ line: String) -> String? {
        guard let r = line.firstRange(of: "Worker (pid:") else { return nil }
        let rest = line[r.upperBound...]
        if let c = rest.firstRange(of: ") exited with code ") {
            let code = rest[c.upperBound...].prefix { $0.isNumber }
            return code.isEmpty ? nil : "exit status \(code)"
        }
        if let k = rest.firstRange(of: ") was sent ") {
            return "killed by " + rest[k.upperBound...].prefix { $0.isLetter }
        }
        return nil
    }

    // MARK: calls

    /// Hop-by-hop headers never forwarded.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-connection", "host", "content-length",
        "x-emulator-invocation",
    ]

    /// Opens an invocation on function `name`'s process: its spawn id and port, the invocation id,
    /// the output it will collect and the worker deaths so far. The backend's `prepare` has started
    /// the process, so this is one lock (the one registering the output) rather than a second
    /// `ensureRunning`; a process that ended since, or was never prepared, is started again.
    private func openInvocation(_ name: String) async throws -> (String, Int, String, InvocationOutput, Int) {
        func open(_ s: inout State, _ sid: String, _ port: Int) -> (String, Int, String, InvocationOutput, Int) {
            s.counter += 1
            let inv = "i\(s.counter)"
            let o = InvocationOutput()
            s.spawns[sid]?.open[inv] = o
            return (sid, port, inv, o, s.spawns[sid]?.workerDeaths.count ?? 0)
        }
        let prepared = state.withLock { s -> (String, Int, String, InvocationOutput, Int)? in
            // A stopping codebase goes through `ensureRunning` for its error.
            guard !s.stopped, let slot = s.functions[name], let sid = slot.spawn, let port = slot.port else { return nil }
            return open(&s, sid, port)
        }
        if let prepared { return prepared }
        let (sid, port) = try await ensureRunning(name)
        return state.withLock { open(&$0, sid, port) }
    }

    /// Sends one request to the function's process (started if needed) and returns its answer;
    /// what the function printed meanwhile goes to the invocation's log. A call that outlives the
    /// function's timeout (the host cancels it) kills the process.
    func forward(
        _ endpoint: ManifestEndpoint, method: String, path: String, headers: [(String, String)], body: [UInt8],
        ctx: FunctionContext
    ) async throws -> FunctionHTTPResponse {
        let name = endpoint.definition.name
        let (sid, port, inv, output, deathsBefore) = try await openInvocation(name)
        defer { state.withLock { _ = $0.spawns[sid]?.open.removeValue(forKey: inv) } }
        var h = headers.filter { !Self.hopByHop.contains($0.0.lowercased()) }
        h.append(("X-Emulator-Invocation", inv))
        let timeout = endpoint.definition.timeoutSeconds
        do {
            let r = try await withTaskCancellationHandler {
                try await transport.send(port: port, method: method, path: path, headers: h, body: body, timeout: timeout + 5)
            } onCancel: { [self] in
                logger.log(.warning, "functions", "\(label): \(name) timed out after \(timeout) s; stopping its process")
                retire(sid)
                signal(sid, SIGKILL)
            }
            await output.waitForEnd(1)
            for l in output.lines { ctx.log(l) }
            return r
        } catch {
            // The process (or the server's worker process, which gunicorn then replaces) may have
            // died mid-call: give the news a moment to arrive, for the message.
            var why: String?
            for _ in 0..<50 {
                why = state.withLock { s -> String? in
                    guard let sp = s.spawns[sid] else { return nil }
                    return sp.exit ?? (sp.workerDeaths.count > deathsBefore ? sp.workerDeaths.last : nil)
                }
                if why != nil || Task.isCancelled { break }
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            for l in output.lines { ctx.log(l) }
            if Task.isCancelled { throw HttpsError(.deadlineExceeded, "function \(name) timed out after \(timeout) s") }
            if let why { throw HttpsError(.unavailable, "function \(name) ended during the call (\(why))") }
            throw HttpsError(.unavailable, "function \(name) is not reachable: \(error)")
        }
    }
}
