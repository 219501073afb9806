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

    /// Creates an empty injector.
    public init() {}

    /// Adds a rule decoded from an admin request body and returns it.
    public func add(projectId: String, body: [String: JSON]) throws -> FaultRule {
        try state.withLock { s in
            var pf = s[projectId] ?? ProjectFaults()
            let rule = try FaultRule.decode(body, id: "fault-\(pf.nextId)")
            pf.nextId += 1
            pf.rules.append(rule)
            s[projectId] = pf
            return rule
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
