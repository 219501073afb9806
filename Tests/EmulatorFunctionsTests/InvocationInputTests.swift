import EmulatorCore
import Testing

@testable import EmulatorFunctions

/// Invocation records keep what the function was given, and a recorded event can be delivered again.
@Suite struct InvocationInputTests {
    @Test func eventInputIsRecordedAndRedeliveredWithTheSameId() async throws {
        let h = host()
        let seen = Seen()
        h.register(
            project: "p", FunctionDefinition(name: "onTask", trigger: .document(pattern: "tasks/{id}", event: .written)),
            .event { ev, ctx in
                seen.add(ev.id)
                ctx.log("saw \(ev.subject)")
            })
        h.documentsChanged(project: "p", time: Timestamp(seconds: 1), changes: [("tasks/a", nil, doc(["n": 1]))])
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        // `#require`, not `[0]`: on a loaded machine the wait can time out, and an index out of
        // range would take the whole test process down instead of failing this test.
        let first = try #require(h.logs(project: "p").first)
        #expect(first.input?["subject"] == "tasks/a" && first.logs == ["saw tasks/a"] && first.json["rerunnable"] == true)
        #expect(h.invocation(project: "p", id: first.id)?.eventId == first.eventId)
        #expect(h.redeliver(project: "p", function: "onTask", event: first.event!))
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(seen.all.count == 2 && seen.all[0] == seen.all[1])
        #expect(!h.redeliver(project: "p", function: "gone", event: first.event!))
    }

    @Test func callableInputIsRecordedButNotRerunnable() async throws {
        let h = host()
        h.register(project: "p", FunctionDefinition(name: "echo", trigger: .callable), .callable { req, _ in req.data })
        _ = await h.call(
            project: "p", name: "echo", method: "POST", contentType: "application/json", body: Array(#"{"data": {"x": 1}}"#.utf8),
            auth: .success(nil), rawToken: nil, appCheck: nil)
        let rec = try #require(h.logs(project: "p").first)
        #expect(rec.input == ["x": 1] && rec.event == nil && rec.json["rerunnable"] == nil)
    }

    @Test func onlyTheNewestInputsAreKept() async {
        let h = host()
        h.register(project: "p", FunctionDefinition(name: "echo", trigger: .callable), .callable { req, _ in req.data })
        for i in 0..<(FunctionsHost.maxInputs + 5) {
            _ = await h.call(
                project: "p", name: "echo", method: "POST", contentType: "application/json", body: Array("{\"data\": \(i)}".utf8),
                auth: .success(nil), rawToken: nil, appCheck: nil)
        }
        let logs = h.logs(project: "p")
        #expect(logs.prefix(5).allSatisfy { $0.input == nil } && logs.suffix(FunctionsHost.maxInputs).allSatisfy { $0.input != nil })
    }
}
