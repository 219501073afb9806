import EmulatorCore
import Testing

@testable import EmulatorFunctions

@Suite struct FunctionsHostTriggerTests {
    func makeHost(_ provider: LocalEnvironmentProvider = LocalEnvironmentProvider()) -> FunctionsHost {
        FunctionsHost(environments: provider, retryBaseDelay: 0.001, maxAttempts: 5)
    }

    @Test func publishedMessagesReachEverySubscriberInOrder() async {
        let h = makeHost()
        let seen = Seen()
        for name in ["a", "b"] {
            h.register(
                project: "p", FunctionDefinition(name: name, trigger: .pubsub(topic: "orders")),
                .event { ev, _ in
                    seen.add("\(name) \(ev.id) \(ev.after?["data"]?.stringValue ?? "") \(ev.after?["attributes"]?["k"]?.stringValue ?? "")")
                })
        }
        h.register(project: "p", FunctionDefinition(name: "other", trigger: .pubsub(topic: "else")), .event { _, _ in seen.add("other") })
        let ids = h.publish(
            project: "p", topic: "orders", messages: [PubSubMessage(data: [1], attributes: ["k": "v"]), PubSubMessage(data: [2])],
            time: Timestamp(seconds: 1))
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(ids.count == 2 && Set(ids).count == 2)
        #expect(seen.all == ["a \(ids[0]) AQ== v", "b \(ids[0]) AQ== v", "a \(ids[1]) Ag== ", "b \(ids[1]) Ag== "])
    }

    @Test func scheduledFunctionsRunOnDemandAndRetryAsConfigured() async throws {
        let h = makeHost()
        let attempts = Seen()
        h.register(
            project: "p",
            FunctionDefinition(name: "tick", trigger: .scheduled(schedule: "every 5 minutes", timeZone: nil), retry: true, maxAttempts: 2),
            .event { ev, _ in
                attempts.add("\(ev.type) \(ev.time.seconds) \(ev.attempt)")
                throw HttpsError(.internal, "always fails")
            })
        _ = try h.runScheduled(project: "p", name: "tick", scheduleTime: Timestamp(seconds: 300))
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(attempts.all == ["schedule.run 300 1", "schedule.run 300 2"])
        #expect(h.logs(project: "p").map(\.outcome) == ["error", "error", "gave-up"])
        #expect(throws: HttpsError.self) { try h.runScheduled(project: "p", name: "missing", scheduleTime: Timestamp(seconds: 0)) }
    }

    @Test func theScheduleRunnerFollowsTheProjectClock() async throws {
        let provider = LocalEnvironmentProvider()
        let clock = provider.environment(for: "p").clock
        try clock.freeze(at: Timestamp(rfc3339: "2026-03-01T10:00:30Z")!)
        let h = makeHost(provider)
        let runs = Seen()
        h.register(
            project: "p", FunctionDefinition(name: "tick", trigger: .scheduled(schedule: "*/5 * * * *", timeZone: nil)),
            .event { ev, _ in
                runs.add(ev.time.rfc3339())
            })
        h.tickSchedules()  // starts the count
        try clock.advance(seconds: 60)
        h.tickSchedules()
        #expect(await h.idle(project: "p", timeout: 30) == nil && runs.all.isEmpty)
        try clock.advance(seconds: 3600)
        h.tickSchedules()
        h.tickSchedules()
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(runs.all == ["2026-03-01T11:00:00Z"])
    }

    /// A schedule's `timeZone` shifts its fields (Kolkata is UTC+05:30 all year), read from the
    /// system's zoneinfo.
    @Test(.enabled(if: TimeZoneRules.named("Asia/Kolkata") != nil)) func schedulesRunInTheirTimeZone() async throws {
        let provider = LocalEnvironmentProvider()
        let clock = provider.environment(for: "p").clock
        try clock.freeze(at: Timestamp(rfc3339: "2026-03-01T03:00:00Z")!)
        let h = makeHost(provider)
        let runs = Seen()
        h.register(
            project: "p", FunctionDefinition(name: "nine", trigger: .scheduled(schedule: "0 9 * * *", timeZone: "Asia/Kolkata")),
            .event { ev, _ in
                runs.add(ev.time.rfc3339())
            })
        h.tickSchedules()
        try clock.advance(seconds: 6 * 3600)
        h.tickSchedules()
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(runs.all == ["2026-03-01T03:30:00Z"])
    }

    @Test func tasksWaitForTheirScheduleTime() async throws {
        let provider = LocalEnvironmentProvider()
        let clock = provider.environment(for: "p").clock
        try clock.freeze(at: Timestamp(seconds: 1000))
        let h = makeHost(provider)
        let seen = Seen()
        h.register(
            project: "p", FunctionDefinition(name: "work", trigger: .taskQueue),
            .event { ev, _ in
                seen.add("\(ev.after?["body"]?.stringValue ?? "") \(ev.after?["headers"]?["X-H"]?.stringValue ?? "")")
            })
        let id = try h.enqueueTask(
            project: "p", queue: "work", taskId: "t1", body: [7], headers: ["X-H": "h"], scheduleTime: Timestamp(seconds: 1000, nanos: 300_000_000))
        #expect(id == "t1")
        #expect(await h.idle(project: "p", timeout: 0)?.contains("1 task(s) waiting for their schedule time") == true)
        #expect(await h.idle(project: "p", timeout: 30) == nil)
        #expect(seen.all == ["Bw== h"])
        #expect(throws: HttpsError.self) { try h.enqueueTask(project: "p", queue: "nope", taskId: nil, body: [], headers: [:], scheduleTime: nil) }
    }

    @Test func functionsAreServedAtEveryRegionTheyName() {
        let h = makeHost()
        h.register(
            project: "p", FunctionDefinition(name: "f", regions: ["us-east1", "asia-northeast1"], trigger: .http),
            .http { _, _ in FunctionHTTPResponse(status: 204) })
        #expect(h.resolve(project: "p", region: "us-east1", name: "f") != nil && h.resolve(project: "p", region: "asia-northeast1", name: "f") != nil)
        #expect(h.resolve(project: "p", region: "us-central1", name: "f") == nil)
        #expect(h.functions(project: "p").first?.region == "us-east1")
    }
}
