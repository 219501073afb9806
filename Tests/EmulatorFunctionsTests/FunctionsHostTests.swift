import EmulatorCore
import Testing

@testable import EmulatorFunctions

/// Collects what functions saw, across tasks.
final class Seen: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
}

func host(retryDelay: Double = 0.001) -> FunctionsHost {
    FunctionsHost(environments: LocalEnvironmentProvider(), retryBaseDelay: retryDelay, maxAttempts: 4)
}

func doc(_ fields: JSON) -> JSON { ["fields": fields] }

@Suite struct FunctionsHostTests {
    @Test func callableGetsDataAndAuthAndMapsErrors() async {
        let h = host()
        h.register(
            project: "p", FunctionDefinition(name: "echo", trigger: .callable),
            .callable { req, _ in
                guard let uid = req.auth?.uid else { throw HttpsError(.failedPrecondition, "The function must be called while authenticated.") }
                return ["uid": .string(uid), "data": req.data]
            })
        let body = Array(#"{"data": {"x": 1}}"#.utf8)
        let ok = await h.call(
            project: "p", name: "echo", method: "POST", contentType: "application/json", body: body,
            auth: .success(AuthContext(uid: "u1", token: [:])), rawToken: nil, appCheck: nil)
        #expect(ok.status == 200 && ok.body == ["result": ["uid": "u1", "data": ["x": 1]]])
        let anon = await h.call(
            project: "p", name: "echo", method: "POST", contentType: "application/json", body: body, auth: .success(nil), rawToken: nil, appCheck: nil
        )
        #expect(anon.status == 400 && anon.body["error"]?["status"] == "FAILED_PRECONDITION")
        let bad = await h.call(
            project: "p", name: "echo", method: "POST", contentType: "application/json", body: body,
            auth: .failure(HttpsError(.unauthenticated, "bad token")), rawToken: nil, appCheck: nil)
        #expect(bad.status == 401)
        let missing = await h.call(
            project: "p", name: "nope", method: "POST", contentType: "application/json", body: body, auth: .success(nil), rawToken: nil, appCheck: nil
        )
        #expect(missing.status == 404)
    }

    @Test func hasDocumentTriggersOnlyWithADocumentTriggerInTheProject() {
        let h = host()
        #expect(!h.hasDocumentTriggers(project: "p"))
        h.register(project: "p", FunctionDefinition(name: "echo", trigger: .callable), .callable { _, _ in [:] })
        #expect(!h.hasDocumentTriggers(project: "p"))
        h.register(
            project: "p", FunctionDefinition(name: "onTask", trigger: .document(pattern: "tasks/{taskId}", event: .written)), .event { _, _ in })
        #expect(h.hasDocumentTriggers(project: "p"))
        #expect(!h.hasDocumentTriggers(project: "other"))
    }

    @Test func documentEventsArriveInCommitOrderWithParams() async {
        let h = host()
        let seen = Seen()
        h.register(
            project: "p", FunctionDefinition(name: "onTask", trigger: .document(pattern: "tasks/{taskId}", event: .written)),
            .event { ev, _ in
                seen.add("\(ev.type) \(ev.params["taskId"]!) \(ev.after?["fields"]?["n"]?.intValue ?? -1)")
            })
        h.register(
            project: "p", FunctionDefinition(name: "onCreate", trigger: .document(pattern: "tasks/{taskId}", event: .created)),
            .event { ev, _ in
                seen.add("created-only \(ev.subject)")
            })
        for n in 1...5 {
            let before: JSON? = n == 1 ? Optional.none : doc(["n": .int(Int64(n - 1))])
            h.documentsChanged(project: "p", time: Timestamp(seconds: Int64(n)), changes: [("tasks/a", before, doc(["n": .int(Int64(n))]))])
        }
        h.documentsChanged(project: "p", time: Timestamp(seconds: 9), changes: [("tasks/a", doc([:]), nil), ("other/x", nil, doc([:]))])
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(
            seen.all.filter { $0.hasPrefix("document") } == [
                "document.created a 1", "document.updated a 2", "document.updated a 3", "document.updated a 4", "document.updated a 5",
                "document.deleted a -1",
            ])
        #expect(seen.all.filter { $0.hasPrefix("created-only") } == ["created-only tasks/a"])
        #expect(h.logs(project: "p").count == 7)
    }

    @Test func failingEventsAreRetriedUntilTheySucceed() async {
        let h = host()
        let attempts = Seen()
        h.register(
            project: "p", FunctionDefinition(name: "flaky", trigger: .auth(event: "created"), retry: true),
            .event { ev, _ in
                attempts.add(ev.id)
                if attempts.all.count < 3 { throw HttpsError(.unavailable, "not yet") }
            })
        h.userEvent(project: "p", event: "created", time: Timestamp(seconds: 1), uid: "u1", user: ["localId": "u1"])
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(attempts.all.count == 3)
        #expect(Set(attempts.all).count == 1)
        #expect(h.logs(project: "p").map(\.outcome) == ["error", "error", "ok"])
        #expect(h.logs(project: "p").map(\.attempt) == [1, 2, 3])
    }

    @Test func withoutRetryAFailureIsRecordedOnce() async {
        let h = host()
        h.register(
            project: "p", FunctionDefinition(name: "once", trigger: .auth(event: "deleted")),
            .event { _, ctx in
                ctx.log("about to fail")
                throw HttpsError(.internal, "boom")
            })
        h.userEvent(project: "p", event: "deleted", time: Timestamp(seconds: 1), uid: "u1", user: [:])
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        let logs = h.logs(project: "p")
        #expect(logs.count == 1 && logs[0].outcome == "error" && logs[0].logs == ["about to fail"] && logs[0].error == "INTERNAL: boom")
    }

    @Test func idleReportsWhatIsPendingAfterTheTimeout() async {
        let h = host()
        h.register(
            project: "p", FunctionDefinition(name: "slow", trigger: .auth(event: "created")),
            .event { _, _ in
                try await Task.sleep(nanoseconds: 300_000_000)
            })
        h.userEvent(project: "p", event: "created", time: Timestamp(seconds: 1), uid: "u1", user: [:])
        let pending = await h.idle(project: "p", timeout: 0.05)
        #expect(pending?.isEmpty == false)
        #expect(await h.idle(project: "p", timeout: 30) == nil)
    }

    @Test func timeoutsAndInjectedFaults() async {
        let h = host()
        h.register(
            project: "p", FunctionDefinition(name: "sleepy", trigger: .callable, timeoutSeconds: 0.05),
            .callable { _, _ in
                try await Task.sleep(nanoseconds: 2_000_000_000)
                return nil
            })
        let r = await h.call(
            project: "p", name: "sleepy", method: "POST", contentType: "application/json", body: Array(#"{"data":1}"#.utf8), auth: .success(nil),
            rawToken: nil, appCheck: nil)
        #expect(r.status == 504 && r.body["error"]?["status"] == "DEADLINE_EXCEEDED")
        h.register(project: "p", FunctionDefinition(name: "fine", trigger: .callable), .callable { _, _ in "ok" })
        h.setFaultHook { _, name in name == "fine" ? HttpsError(.unavailable, "injected") : nil }
        let f = await h.call(
            project: "p", name: "fine", method: "POST", contentType: "application/json", body: Array(#"{"data":1}"#.utf8), auth: .success(nil),
            rawToken: nil, appCheck: nil)
        #expect(f.status == 503)
    }

    /// Regression: the fault hook lived in a `Mutex` as a bare closure, and each `withLock` read
    /// wrapped it in two more reabstraction thunks (inout through the generic boundary), so every
    /// invocation got slower and, after some thousands, overflowed the stack.
    @Test func manyInvocationsDoNotGrowTheFaultHook() async {
        let h = host()
        h.register(project: "p", FunctionDefinition(name: "fine", trigger: .callable), .callable { _, _ in "ok" })
        h.setFaultHook { _, name in name == "never" ? HttpsError(.unavailable, "injected") : nil }
        var ok = 0
        for _ in 0..<5_000 {
            let r = await h.call(
                project: "p", name: "fine", method: "POST", contentType: "application/json", body: Array(#"{"data":1}"#.utf8),
                auth: .success(nil), rawToken: nil, appCheck: nil)
            if r.status == 200 { ok += 1 }
        }
        #expect(ok == 5_000)
    }

    @Test func blockingFunctionsCanChangeOrReject() async throws {
        let h = host()
        h.register(
            project: "p", FunctionDefinition(name: "gate", trigger: .blocking(event: "beforeCreate")),
            .blocking { ev, _ in
                if ev["user"]?["email"]?.stringValue?.hasSuffix("@blocked.example") == true { throw HttpsError(.permissionDenied, "blocked") }
                return ["displayName": "Welcome"]
            })
        #expect(try await h.runBlocking(project: "p", event: "beforeCreate", payload: ["user": ["email": "a@b.c"]]) == ["displayName": "Welcome"])
        await #expect(throws: HttpsError.self) {
            try await h.runBlocking(project: "p", event: "beforeCreate", payload: ["user": ["email": "x@blocked.example"]])
        }
        #expect(try await h.runBlocking(project: "p", event: "beforeSignIn", payload: [:]) == nil)
    }

    @Test func severalBlockingFunctionsForOneEventAreRefusedNamingThem() {
        let h = host()
        let a = FunctionDefinition(name: "gateA", trigger: .blocking(event: "beforeCreate"))
        let b = FunctionDefinition(name: "gateB", trigger: .blocking(event: "beforeCreate"))
        let signIn = FunctionDefinition(name: "signInGate", trigger: .blocking(event: "beforeSignIn"))
        // In one manifest...
        let one = h.blockingConflict(project: "p", codebase: "x", [a, signIn, b])
        #expect(one?.contains("'gateA' (codebase x), 'gateB' (codebase x)") == true, "\(one ?? "nil")")
        #expect(h.blockingConflict(project: "p", codebase: "x", [a, signIn]) == nil)
        // ...and across codebases, whatever registered first.
        h.register(project: "p", a, backend: InProcessBackend(handler: .blocking { _, _ in nil }), codebase: "x")
        let across = h.blockingConflict(project: "p", codebase: "y", [b])
        #expect(across?.contains("beforeCreate: 'gateA' (codebase x), 'gateB' (codebase y)") == true, "\(across ?? "nil")")
        // A codebase reloading its own function is no conflict.
        #expect(h.blockingConflict(project: "p", codebase: "x", [a]) == nil)
    }

    @Test func manifestEntriesDecodeOrExplain() throws {
        #expect(
            try FunctionDefinition(manifest: ["name": "f", "kind": "document", "document": "tasks/{id}", "event": "updated", "retry": true]).trigger
                == .document(pattern: "tasks/{id}", event: .updated))
        #expect(throws: HttpsError.self) { try FunctionDefinition(manifest: ["name": "f", "kind": "cron"]) }
        // Storage triggers: the bucket defaults to the project's, the event must be one production sends.
        #expect(
            try FunctionDefinition(manifest: ["name": "f", "kind": "storage", "event": "finalized"], project: "p").trigger
                == .storage(bucket: "p.appspot.com", event: "finalized"))
        #expect(
            try FunctionDefinition(manifest: ["name": "f", "kind": "storage", "event": "deleted", "bucket": "b"]).trigger
                == .storage(bucket: "b", event: "deleted"))
        #expect(throws: HttpsError.self) { try FunctionDefinition(manifest: ["name": "f", "kind": "storage", "event": "written"], project: "p") }
        #expect(throws: HttpsError.self) { try FunctionDefinition(manifest: ["name": "f", "kind": "storage", "event": "finalized"]) }
        #expect(throws: HttpsError.self) { try FunctionDefinition(manifest: ["name": "bad name!", "kind": "callable"]) }
    }
}
