import EmulatorCore
import Testing

@testable import EmulatorStore

/// Records what a session is told.
final class RecordingSink: WatchSink, @unchecked Sendable {
    let events = Mutex<[WatchEvent]>([])
    func deliver(_ event: WatchEvent) { events.withLock { $0.append(event) } }
    func take() -> [WatchEvent] {
        events.withLock { e in
            defer { e = [] }
            return e
        }
    }

    /// The deltas of the `changed` events taken, flattened to "path:+targets/-removed[/deleted]".
    func changes() -> [String] {
        take().flatMap { e -> [String] in
            guard case .changed(_, let ds) = e else { return ["other event"] }
            return ds.map { d in
                "\(d.path):+\(d.targets.map(String.init).joined(separator: ","))/-\(d.removedTargets.map(String.init).joined(separator: ","))\(d.deleted ? "/deleted" : "")"
            }
        }
    }
}

func q(_ json: JSON) throws -> StructuredQuery { try StructuredQuery(json: json) }

@Suite struct WatchTests {
    func addQuery(
        _ s: StoreService, _ sink: RecordingSink, _ id: Int32, _ json: JSON, parent: String = "",
        resume: WatchResumePoint? = nil
    ) throws {
        try s.addWatch(
            project: "p", database: "(default)", sink: sink, target: id, spec: .query(parent: parent, try q(json)),
            resume: resume, once: false, caller: .admin)
    }

    /// A listener's equality filter builds the field's index, as a runQuery does, so an app that
    /// only listens does not scan the collection for every new target; its results are unchanged.
    @Test func aListenersEqualityFilterBuildsTheFieldsIndex() throws {
        let (s, _) = try makeStore()
        try set(s, "tasks/a", ["owner": .string("u1")])
        try set(s, "tasks/b", ["owner": .string("u2")])
        #expect((try s.withDatabase("p", "(default)") { data, _, _ in data.state.indexedFields["tasks"] }) == nil)
        let sink = RecordingSink()
        try addQuery(s, sink, 2, ["from": [["collectionId": "tasks"]], "where": fieldFilter("owner", "EQUAL", ["stringValue": "u1"])])
        guard case .added(_, _, _, let docs, _, _, _) = sink.take()[0] else {
            Issue.record("no added")
            return
        }
        #expect(docs.map(\.path) == ["tasks/a"])
        #expect((try s.withDatabase("p", "(default)") { data, _, _ in data.state.indexedFields["tasks"] }) == [UTF8Key("owner")])
        try set(s, "tasks/c", ["owner": .string("u1")])  // enters, through the kept index
        #expect(sink.changes() == ["tasks/c:+2/-"])
    }

    @Test func initialResultThenOnlyTheDocumentsACommitChanged() throws {
        let (s, _) = try makeStore()
        try set(s, "tasks/a", ["n": .integer(1)])
        try set(s, "tasks/b", ["n": .integer(5)])
        try set(s, "other/x", ["n": .integer(9)])
        let sink = RecordingSink()
        try addQuery(s, sink, 2, ["from": [["collectionId": "tasks"]], "where": fieldFilter("n", "GREATER_THAN", ["integerValue": "2"])])
        guard case .added(let t, let reset, let resumed, let docs, _, let count, _) = sink.take()[0] else {
            Issue.record("no added")
            return
        }
        #expect(t == 2 && !reset && !resumed && docs.map(\.path) == ["tasks/b"] && count == 1)
        try set(s, "tasks/a", ["n": .integer(3)])  // enters
        try set(s, "other/y", ["n": .integer(9)])  // another collection: no event at all
        try set(s, "tasks/b", ["n": .integer(1)])  // leaves the query, still exists
        _ = try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: "tasks/a", operation: .delete)], caller: .admin)
        #expect(sink.changes() == ["tasks/a:+2/-", "tasks/b:+/-2", "tasks/a:+/-2/deleted"])
    }

    @Test func oneSessionSeesOneDeltaPerDocumentAcrossItsTargets() throws {
        let (s, _) = try makeStore()
        let sink = RecordingSink()
        try addQuery(s, sink, 2, ["from": [["collectionId": "tasks"]]])
        try addQuery(s, sink, 4, ["from": [["collectionId": "tasks"]], "where": fieldFilter("done", "EQUAL", ["booleanValue": true])])
        _ = sink.take()
        try set(s, "tasks/a", ["done": .boolean(true)])
        try set(s, "tasks/a", ["done": .boolean(false)])
        #expect(sink.changes() == ["tasks/a:+2,4/-", "tasks/a:+2/-4"])
    }

    @Test func collectionGroupsAndDocumentTargets() throws {
        let (s, _) = try makeStore()
        let group = RecordingSink(), docs = RecordingSink()
        try addQuery(s, group, 1, ["from": [["collectionId": "msgs", "allDescendants": true]]], parent: "rooms/r1")
        try s.addWatch(
            project: "p", database: "(default)", sink: docs, target: 7, spec: .documents(["rooms/r1/msgs/m1", "nope/x"]),
            resume: nil, once: false, caller: .admin)
        _ = group.take()
        _ = docs.take()
        try set(s, "rooms/r1/msgs/m1", [:])
        try set(s, "rooms/r2/msgs/m2", [:])  // outside the parent
        try set(s, "rooms/r1/x/y/msgs/m3", [:])
        #expect(group.changes() == ["rooms/r1/msgs/m1:+1/-", "rooms/r1/x/y/msgs/m3:+1/-"])
        #expect(docs.changes() == ["rooms/r1/msgs/m1:+7/-"])
    }

    @Test func limitWindowsRefillWhenADocumentLeaves() throws {
        let (s, _) = try makeStore()
        for (id, n) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] { try set(s, "t/\(id)", ["n": .integer(Int64(n))]) }
        let sink = RecordingSink()
        try addQuery(s, sink, 2, ["from": [["collectionId": "t"]], "orderBy": [["field": ["fieldPath": "n"]]], "limit": 2])
        guard case .added(_, _, _, let docs, _, _, _) = sink.take()[0] else {
            Issue.record("no added")
            return
        }
        #expect(docs.map(\.path) == ["t/a", "t/b"])
        _ = try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: "t/a", operation: .delete)], caller: .admin)
        #expect(sink.changes() == ["t/a:+/-2/deleted", "t/c:+2/-"], "c enters as a leaves: the window stays full")
        try set(s, "t/z", ["n": .integer(0)])  // sorts first: pushes c out
        #expect(sink.changes() == ["t/c:+/-2", "t/z:+2/-"])
        try set(s, "t/d", ["n": .integer(40)])  // outside the window: nothing to say
        #expect(sink.changes() == [])
    }

    /// A change to a document that sorts after a full window's last member cannot alter the
    /// window: the query is not re-run (it was, for every write to the collection, inside the
    /// writer's lock). Changes before the boundary, and to members, still are.
    @Test func changesBehindAFullWindowDoNotReRunItsQuery() throws {
        let (s, _) = try makeStore()
        for n in 1...6 { try set(s, "t/d\(n)", ["n": .integer(Int64(n * 10))]) }
        let sink = RecordingSink()
        try addQuery(s, sink, 2, ["from": [["collectionId": "t"]], "orderBy": [["field": ["fieldPath": "n"]]], "limit": 3])
        _ = sink.take()
        // A re-run that finds no difference announces nothing, like no re-run at all. So a
        // probe is slipped into the state around a write, with no change event: a document that
        // sorts first, which only a re-run could find (it would enter the window). It is taken
        // out again before anything else runs, unseen unless the query re-ran.
        func changesWithProbe(_ write: () throws -> Void) throws -> [String] {
            try s.withDatabase("p", "(default)") { data, _, _ in
                let t = data.state.lastCommit
                data.state.put(Document(path: "t/probe", fields: ["n": .integer(0)], createTime: t, updateTime: t))
            }
            try write()
            try s.withDatabase("p", "(default)") { data, _, _ in data.state.remove("t/probe", at: data.state.lastCommit) }
            return sink.changes()
        }
        #expect(try changesWithProbe { try set(s, "t/d5", ["n": .integer(55)]) } == [])  // after the window (10, 20, 30)
        #expect(try changesWithProbe { try set(s, "t/late", ["n": .integer(31)]) } == [])
        #expect(try changesWithProbe { try set(s, "t/other", ["m": .integer(1)]) } == [])  // not accepted: no order field
        // Before the boundary: enters, pushes d3 out (what a windowed target announces comes only
        // from a re-run).
        try set(s, "t/early", ["n": .integer(25)])
        #expect(sink.changes() == ["t/d3:+/-2", "t/early:+2/-"])
        #expect(try changesWithProbe { try set(s, "t/d3", ["n": .integer(29)]) } == [])  // after the new boundary (25)
        try set(s, "t/d2", ["n": .integer(99)])  // a member moves out: d3 (29) refills
        #expect(sink.changes() == ["t/d2:+/-2", "t/d3:+2/-"])
        // The probe does show a re-run: a change to a member re-runs the query, which finds it.
        #expect(try changesWithProbe { try set(s, "t/d1", ["n": .integer(10), "m": .integer(1)]) }.contains("t/probe:+2/-"))
    }

    @Test func resumeSendsOnlyWhatChangedAndForeignTokensStartOver() throws {
        let (s, env) = try makeStore()
        try set(s, "t/a", ["n": .integer(1)])
        try set(s, "t/b", ["n": .integer(1)])
        let first = RecordingSink()
        try addQuery(s, first, 2, ["from": [["collectionId": "t"]]])
        guard case .added(_, _, _, _, _, _, let readTime) = first.take()[0] else {
            Issue.record("no added")
            return
        }
        s.removeWatches(project: "p", database: "(default)", sink: first)
        try env.clock.advance(seconds: 1)
        try set(s, "t/b", ["n": .integer(2)])
        try set(s, "t/c", ["n": .integer(1)])
        _ = try s.commit(project: "p", database: "(default)", writes: [StoreWrite(path: "t/a", operation: .delete)], caller: .admin)
        let again = RecordingSink()
        try addQuery(s, again, 2, ["from": [["collectionId": "t"]]], resume: WatchResumePoint(epoch: s.epoch, readTime: readTime))
        guard case .added(_, let reset, let resumed, let docs, let removed, let count, _) = again.take()[0] else {
            Issue.record("no added")
            return
        }
        #expect(!reset && resumed && docs.map(\.path) == ["t/b", "t/c"] && removed == ["t/a"] && count == 2)
        let foreign = RecordingSink()
        try addQuery(s, foreign, 2, ["from": [["collectionId": "t"]]], resume: WatchResumePoint(epoch: s.epoch &+ 1, readTime: readTime))
        guard case .added(_, let reset2, _, let docs2, _, _, _) = foreign.take()[0] else {
            Issue.record("no added")
            return
        }
        #expect(reset2 && docs2.map(\.path) == ["t/b", "t/c"])
    }

    @Test func resumeOlderThanTheKeptHistoryStartsOver() throws {
        let (s, env) = try makeStore()
        try set(s, "t/a", ["n": .integer(0)])
        let sink = RecordingSink()
        try addQuery(s, sink, 1, ["from": [["collectionId": "t"]]])
        guard case .added(_, _, _, _, _, _, let readTime) = sink.take()[0] else {
            Issue.record("no added")
            return
        }
        for i in 1...(DatabaseState.historyDepth + 2) {
            try env.clock.advance(seconds: 1)
            try set(s, "t/a", ["n": .integer(Int64(i))])
        }
        let again = RecordingSink()
        try addQuery(s, again, 1, ["from": [["collectionId": "t"]]], resume: WatchResumePoint(epoch: s.epoch, readTime: readTime))
        guard case .added(_, let reset, _, let docs, _, _, _) = again.take()[0] else {
            Issue.record("no added")
            return
        }
        #expect(reset && docs.count == 1)
    }

    @Test func resetAndRestoreReachListenersAsChanges() throws {
        let (s, _) = try makeStore()
        try set(s, "t/a", [:])
        let snapshot = s.captureProject("p")
        try set(s, "t/b", [:])
        let sink = RecordingSink()
        try addQuery(s, sink, 3, ["from": [["collectionId": "t"]]])
        _ = sink.take()
        try s.resetProject("p")
        #expect(sink.changes() == ["t/a:+/-3/deleted", "t/b:+/-3/deleted"])
        try s.restoreProject("p", from: snapshot)
        #expect(sink.changes() == ["t/a:+3/-"])
        try s.resetAll()
        #expect(sink.changes() == ["t/a:+/-3/deleted"])
        try set(s, "t/c", [:])
        #expect(sink.changes() == ["t/c:+3/-"], "the listener survives resetAll")
    }

    @Test func readTimesNeverGoBackwardsWhenTheClockDoes() throws {
        let (s, env) = try makeStore()
        let sink = RecordingSink()
        try env.clock.freeze(at: Timestamp(seconds: 2_000_000_000))
        try addQuery(s, sink, 1, ["from": [["collectionId": "t"]]])
        guard case .added(_, _, _, _, _, _, let first) = sink.take()[0] else {
            Issue.record("no added")
            return
        }
        try env.clock.freeze(at: Timestamp(seconds: 1_000_000_000))  // back in time
        try set(s, "t/a", [:])
        guard case .changed(let t1, _) = sink.take()[0] else {
            Issue.record("no change")
            return
        }
        #expect(t1 > first)
        try s.resetProject("p")
        try set(s, "t/b", [:])
        var times: [Timestamp] = []
        for e in sink.take() { if case .changed(let t, _) = e { times.append(t) } }
        #expect(times.count == 2 && times[0] > t1 && times[1] > times[0])
    }

    @Test func rulesDenyTheWholeTargetAndOnceRemovesItAfterTheFirstResult() throws {
        let (s, _) = try makeStore()
        s.setAuthorizer(DenyListsAuthorizer())
        let sink = RecordingSink()
        #expect(throws: EmulatorError.self) {
            try s.addWatch(
                project: "p", database: "(default)", sink: sink, target: 1, spec: .query(parent: "", try q(["from": [["collectionId": "t"]]])),
                resume: nil, once: false, caller: .unauthenticated)
        }
        #expect(sink.take().isEmpty && s.watchCount(project: "p", database: "(default)") == 0)
        try s.addWatch(
            project: "p", database: "(default)", sink: sink, target: 2, spec: .documents(["t/a"]), resume: nil, once: true, caller: .unauthenticated)
        let events = sink.take()
        #expect(events.count == 2)
        if case .removed(let t) = events.last { #expect(t == 2) } else { Issue.record("once must remove the target") }
        #expect(s.watchCount(project: "p", database: "(default)") == 0)
    }
}

/// Denies every list (query) access, allows gets.
struct DenyListsAuthorizer: StoreAuthorizer {
    func authorize(_ access: StoreAccess) throws {
        if access.method == .list { throw EmulatorError.permissionDenied("Missing or insufficient permissions.") }
    }
}
