import EmulatorCore
import EmulatorRules

/// One judged store access: what the UI's Requests page lists (`GET
/// /emulator/v1/projects/{p}/rulesEvaluations`).
public struct RulesEvaluation: Sendable {
    /// Process-wide increasing id (newer is larger).
    public var id: Int64
    /// Project and database.
    public var project: String, database: String
    /// Request time (the project clock).
    public var time: Timestamp
    /// `get`, `list`, `create`, `update` or `delete`.
    public var method: String
    /// Database-relative path (the collection for `list`).
    public var path: String
    /// `admin`, `user` or `unauthenticated`.
    public var callerKind: String
    /// The end user's uid and sign-in provider, when a user called.
    public var uid: String?, provider: String?
    /// `allow`, `deny`, `error` (denied because a condition failed with an error) or `admin`
    /// (an administrator: rules were not consulted).
    public var outcome: String
    /// The explanation the rules engine produced (what was tried, the values involved).
    public var explanation: String
    /// The deciding points (statement, sub-expression and its location).
    public var deciding: [RulesDecidingPoint]
    /// The ruleset that judged it (file name and source; the source string is shared, not copied).
    public var rulesFile: String?, rulesSource: String?
    /// Lines the rules printed with `debug()`.
    public var debug: [String]
    /// `firestore`, or `storage` (then `database` is the bucket and `path` the object name, or
    /// the listed prefix).
    public var service = "firestore"

    /// The listing shape (no source); `detail` adds the ruleset.
    public func json(detail: Bool) -> JSON {
        var caller: UTF8Dictionary<JSON> = ["kind": .string(callerKind)]
        if let uid { caller["uid"] = .string(uid) }
        if let provider { caller["provider"] = .string(provider) }
        var o: UTF8Dictionary<JSON> = [
            "id": .string(String(id)), "database": .string(database), "time": .string(time.rfc3339()), "method": .string(method),
            "path": .string(path), "caller": .object(caller), "outcome": .string(outcome), "explanation": .string(explanation),
            "deciding": .array(
                deciding.map { p in
                    [
                        "outcome": .string(p.outcome), "line": .int(Int64(p.location.line)), "column": .int(Int64(p.location.column)),
                        "statementLine": .int(Int64(p.statement.line)), "expression": .string(p.expression),
                    ]
                }),
        ]
        if !debug.isEmpty { o["debug"] = .array(debug.map { .string($0) }) }
        if service != "firestore" { o["service"] = .string(service) }
        if let rulesFile { o["rulesFile"] = .string(rulesFile) }
        if detail, let rulesSource { o["rules"] = ["fileName": .string(rulesFile ?? "firestore.rules"), "content": .string(rulesSource)] }
        return .object(o)
    }
}

/// What the Requests page filters by; nil fields match everything.
public struct RulesEvaluationFilter: Sendable {
    /// Exact outcome.
    public var outcome: String?
    /// Exact method.
    public var method: String?
    /// Substring of the path.
    public var path: String?
    /// `admin`, `unauthenticated`, or a substring of the uid or provider.
    public var caller: String?

    /// Creates a filter.
    public init(outcome: String? = nil, method: String? = nil, path: String? = nil, caller: String? = nil) {
        self.outcome = outcome
        self.method = method
        self.path = path
        self.caller = caller
    }

    func matches(_ e: RulesEvaluation) -> Bool {
        if let outcome, e.outcome != outcome { return false }
        if let method, e.method != method { return false }
        if let path, !e.path.contains(path) { return false }
        if let caller {
            if caller == "admin" || caller == "unauthenticated" { return e.callerKind == caller }
            return (e.uid?.contains(caller) ?? false) || (e.provider?.contains(caller) ?? false)
        }
        return true
    }
}

/// The last `capacity` evaluations of each of the `maxProjects` projects appended to most
/// recently, in a ring per project (an append costs the same however full the log is). Without
/// the second bound, reads of made-up project ids each kept a ring for the process's life. State
/// is behind a `Mutex` that is a leaf: nothing else is called while it is held, so the store may
/// append from inside its database lock.
public final class RulesEvaluationLog: Sendable {
    /// One project's ring: a class, so that an append changes it where it is rather than
    /// through the dictionary. Only touched under `state`'s lock.
    final class Ring {
        var items: [RulesEvaluation] = []
        var head = 0  // index of the oldest item once the ring is full
        /// The id of the evaluation appended last: the ring appended to longest ago goes first.
        var lastId: Int64 = 0

        /// Adds `e`, replacing the oldest item once `capacity` are kept.
        func append(_ e: RulesEvaluation, capacity: Int) {
            if items.count < capacity {
                items.append(e)
            } else {
                items[head] = e
                head = (head + 1) % capacity
            }
        }

        /// Newest first.
        var newestFirst: [RulesEvaluation] {
            let ordered = items.count < 1 || head == 0 ? items : Array(items[head...] + items[..<head])
            return ordered.reversed()
        }
    }

    /// Evaluations kept per project.
    public let capacity: Int
    /// Projects whose evaluations are kept.
    public let maxProjects: Int
    private struct State {
        var next: Int64 = 1
        var rings: [String: Ring] = [:]
        /// The ring appended to last, with its project: appends come in runs for one project,
        /// and a string comparison costs less than hashing the project's name for each read.
        var last: (project: String, ring: Ring)?

        mutating func ring(_ project: String, maxProjects: Int) -> Ring {
            if let last, last.project == project { return last.ring }
            let ring: Ring
            if let existing = rings[project] {
                ring = existing
            } else {
                // A scan of at most `maxProjects` rings, only when a project's first evaluation
                // finds the log full.
                if rings.count >= maxProjects, let oldest = rings.min(by: { $0.value.lastId < $1.value.lastId })?.key {
                    rings[oldest] = nil
                }
                ring = Ring()
                rings[project] = ring
            }
            last = (project, ring)
            return ring
        }
    }

    private let state = Mutex(State())

    /// Creates an empty log keeping `capacity` evaluations of each of `maxProjects` projects.
    public init(capacity: Int = 1000, maxProjects: Int = 100) {
        self.capacity = max(1, capacity)
        self.maxProjects = max(1, maxProjects)
    }

    /// How many projects have evaluations kept.
    public var projectCount: Int { state.withLock { $0.rings.count } }

    /// Records one evaluation; its `id` is assigned here.
    func append(_ e: consuming RulesEvaluation) {
        // Moved in, changed where it is, copied once into the ring: each copy of an evaluation
        // retains a dozen strings, and every store access appends one.
        var e = e
        state.withLock { s in
            e.id = s.next
            s.next += 1
            let ring = s.ring(e.project, maxProjects: maxProjects)
            ring.lastId = e.id
            ring.append(e, capacity: capacity)
        }
    }

    /// Newest first, matching `filter`, older than `before` (an id), at most `pageSize`; with the
    /// number kept and the id to pass as `before` for the next page.
    public func page(project: String, filter: RulesEvaluationFilter, before: Int64?, pageSize: Int) -> (
        items: [RulesEvaluation], kept: Int, next: Int64?
    ) {
        let all = state.withLock { $0.rings[project]?.newestFirst ?? [] }
        var out: [RulesEvaluation] = []
        var more = false
        for e in all where (before.map { e.id < $0 } ?? true) && filter.matches(e) {
            if out.count == pageSize {
                more = true
                break
            }
            out.append(e)
        }
        return (out, all.count, more ? out.last?.id : nil)
    }

    /// One evaluation by id.
    public func evaluation(project: String, id: Int64) -> RulesEvaluation? {
        state.withLock { $0.rings[project]?.items.first { $0.id == id } }
    }

    /// How many evaluations the project has kept.
    public func count(project: String) -> Int { state.withLock { $0.rings[project]?.items.count ?? 0 } }

    /// Forgets the project's evaluations.
    public func clear(project: String) {
        state.withLock {
            _ = $0.rings.removeValue(forKey: project)
            $0.last = nil
        }
    }
}

extension RulesEvaluationLog: ProjectStateParticipant {
    /// `rulesEvaluations`.
    public var participantName: String { "rulesEvaluations" }
    /// A reset starts the project's log afresh.
    public func resetProject(_ projectId: String) { clear(project: projectId) }
    /// Forgets every project's evaluations.
    public func resetAll() {
        state.withLock {
            $0.rings = [:]
            $0.last = nil
        }
    }
    /// The log is not part of a snapshot: an empty marker.
    public func captureProject(_ projectId: String) -> any Sendable { 0 }
    /// Restoring keeps the log: it records what happened, including before the restore.
    public func restoreProject(_ projectId: String, from snapshot: any Sendable) throws {}
}
