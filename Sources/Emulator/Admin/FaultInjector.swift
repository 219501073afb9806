import EmulatorCore

/// Per-project fault rules and the seeded draw that decides probabilistic ones.
/// State is behind a `Mutex`; the draw uses its own `IDGenerator` so faults never perturb the
/// project's id sequence.
public final class FaultInjector: Sendable {
    struct ProjectFaults {
        var rules: [FaultRule] = []
        var nextId = 1
    }

    private let state: Mutex<[String: ProjectFaults]> = Mutex([:])
    private let draws = IDGenerator()
    /// Tasks waiting for a project's next rule (long-lived streams check new rules at once).
    private let waiters = Mutex<(next: Int, byProject: [String: [Int: CheckedContinuation<Void, Never>]])>((0, [:]))

    /// Creates an empty injector.
    public init() {}

    /// Adds a rule decoded from an admin request body and returns it.
    public func add(projectId: String, body: UTF8Dictionary<JSON>) throws -> FaultRule {
        let rule = try state.withLock { s in
            var pf = s[projectId] ?? ProjectFaults()
            let rule = try FaultRule.decode(body, id: "fault-\(pf.nextId)")
            pf.nextId += 1
            pf.rules.append(rule)
            s[projectId] = pf
            return rule
        }
        let woken = waiters.withLock { w -> [CheckedContinuation<Void, Never>] in
            let mine = w.byProject.removeValue(forKey: projectId).map { Array($0.values) } ?? []
            let any = w.byProject.removeValue(forKey: Self.anyProject).map { Array($0.values) } ?? []
            return mine + any
        }
        for c in woken { c.resume() }
        return rule
    }

    static let anyProject = "\u{0}any"

    /// Returns when a rule is next added to the project (nil: to any project) or the task is
    /// cancelled, so a Listen or Write stream that is already open can be ended by a fault added later.
    public func waitForNewRule(projectId: String?) async {
        let projectId = projectId ?? Self.anyProject
        let id = waiters.withLock { w -> Int in
            w.next += 1
            return w.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = waiters.withLock { w -> Bool in
                    if Task.isCancelled { return true }
                    w.byProject[projectId, default: [:]][id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let c = waiters.withLock { w in w.byProject[projectId]?.removeValue(forKey: id) }
            c?.resume()
        }
    }

    /// The active rules with their fire counts.
    public func list(projectId: String) -> [FaultRule] { state.withLock { $0[projectId]?.rules ?? [] } }

    /// Removes every rule of the project (or only `id`). Returns how many were removed.
    @discardableResult
    public func clear(projectId: String, id: String? = nil) -> Int {
        state.withLock { s in
            let before = s[projectId]?.rules.count ?? 0
            if let id { s[projectId]?.rules.removeAll { $0.id == id } } else { s[projectId]?.rules = [] }
            return before - (s[projectId]?.rules.count ?? 0)
        }
    }

    /// Whether any project has a rule; lets every request skip classifying itself when none do.
    public var hasRules: Bool { state.withLock { s in s.values.contains { !$0.rules.isEmpty } } }

    /// Forgets every project's rules.
    public func clearAll() { state.withLock { $0 = [:] } }

    /// Seeds the probability draws (nil = system randomness).
    public func reseed(_ seed: UInt64?) { draws.reseed(seed.map { $0 ^ 0xFA17_FA17 }) }

    /// The first matching rule that fires for `target`, counting it as fired; exhausted rules
    /// (`times` used up) are removed from the count but stay listed with `remaining: 0`.
    public func fire(projectId: String, target: FaultTarget) -> FaultRule? {
        state.withLock { s in
            guard var pf = s[projectId] else { return nil }
            for i in pf.rules.indices where pf.rules[i].matches(target) {
                if let r = pf.rules[i].remaining, r <= 0 { continue }
                if pf.rules[i].probability < 1 {
                    let draw = Double(draws.next() >> 11) / Double(1 << 53)
                    if draw >= pf.rules[i].probability { continue }
                }
                pf.rules[i].fired += 1
                if let r = pf.rules[i].remaining { pf.rules[i].remaining = r - 1 }
                let fired = pf.rules[i]
                s[projectId] = pf
                return fired
            }
            return nil
        }
    }
}
