import EmulatorCore
import Testing

@testable import EmulatorFunctions

/// The manifest firebase-functions 0.6.0 produced for a codebase (YAML converted by PyYAML), trimmed
/// to the fields that matter.
let sdkManifest: JSON = try! JSON.parse(
    #"""
    {"endpoints": {
      "whoami": {"entryPoint": "whoami", "platform": "gcfv2", "callableTrigger": {}, "labels": {"deployment-callable": "true"}, "timeoutSeconds": null},
      "echo": {"entryPoint": "echo", "platform": "gcfv2", "httpsTrigger": {}, "region": ["europe-west1"], "timeoutSeconds": 30},
      "regional": {"entryPoint": "regional", "platform": "gcfv2", "httpsTrigger": {}, "region": ["us-east1", "asia-northeast1"]},
      "onTask": {"entryPoint": "onTask", "platform": "gcfv2", "eventTrigger": {"eventFilterPathPatterns": {"document": "tasks/{taskId}"},
                 "eventFilters": {"database": "(default)", "namespace": "(default)"}, "eventType": "google.cloud.firestore.document.v1.written", "retry": false}},
      "onNote": {"entryPoint": "onNote", "platform": "gcfv2", "eventTrigger": {"eventFilters": {"database": "(default)", "namespace": "(default)", "document": "notes/n1"},
                 "eventType": "google.cloud.firestore.document.v1.created.withAuthContext", "retry": false}},
      "elsewhere": {"entryPoint": "elsewhere", "platform": "gcfv2", "eventTrigger": {"eventFilterPathPatterns": {"document": "a/{b}"},
                 "eventFilters": {"database": "other", "namespace": "(default)"}, "eventType": "google.cloud.firestore.document.v1.deleted", "retry": false}},
      "beforecreated": {"entryPoint": "beforecreated", "platform": "gcfv2", "blockingTrigger": {"eventType": "providers/cloud.auth/eventTypes/user.beforeCreate",
                 "options": {"accessToken": false, "idToken": true, "refreshToken": false}}},
      "beforesignedin": {"entryPoint": "beforesignedin", "platform": "gcfv2", "blockingTrigger": {"eventType": "providers/cloud.auth/eventTypes/user.beforeSignIn", "options": {}}},
      "beforeemail": {"entryPoint": "beforeemail", "platform": "gcfv2", "blockingTrigger": {"eventType": "providers/cloud.auth/eventTypes/user.beforeSendEmail"}},
      "tick": {"entryPoint": "tick", "platform": "gcfv2", "scheduleTrigger": {"schedule": "every 5 minutes", "timeZone": "Europe/Paris", "retryConfig": {"retryCount": 2}}},
      "orders": {"entryPoint": "orders", "platform": "gcfv2", "eventTrigger": {"eventType": "google.cloud.pubsub.topic.v1.messagePublished",
                 "eventFilters": {"topic": "orders"}, "retry": true}},
      "work": {"entryPoint": "work", "platform": "gcfv2", "taskQueueTrigger": {"retryConfig": {"maxAttempts": 5}, "rateLimits": {}}},
      "bucket": {"entryPoint": "bucket", "platform": "gcfv2", "eventTrigger": {"eventType": "google.cloud.storage.object.v1.finalized", "eventFilters": {"bucket": "b"}}},
      "bad name!": {"entryPoint": "x", "platform": "gcfv2", "httpsTrigger": {}}
    },
    "params": [{"name": "GREETING", "type": "string", "default": "hello"}, {"name": "MAX", "type": "int", "default": 3},
               {"name": "ON", "type": "boolean", "default": true}, {"name": "LIST", "type": "list", "default": ["a", "b"]},
               {"name": "EXPR", "type": "string", "default": "{{ params.GREETING }}"}, {"name": "KEY", "type": "secret"}],
    "requiredAPIs": [], "specVersion": "v1alpha1"}
    """#)

@Suite struct FunctionManifestTests {
    @Test func convertsEveryServableTrigger() throws {
        let m = try FunctionManifest(json: sdkManifest)
        let byName = Dictionary(uniqueKeysWithValues: m.endpoints.map { ($0.definition.name, $0) })
        #expect(
            m.endpoints.map(\.definition.name) == [
                "beforecreated", "beforesignedin", "bucket", "echo", "onNote", "onTask", "orders", "regional", "tick", "whoami", "work",
            ])
        #expect(byName["whoami"]?.definition.trigger == .callable && byName["whoami"]?.signatureType == "http")
        #expect(byName["whoami"]?.definition.timeoutSeconds == 60 && byName["whoami"]?.definition.regions == ["us-central1"])
        #expect(
            byName["echo"]?.definition.trigger == .http && byName["echo"]?.definition.region == "europe-west1"
                && byName["echo"]?.definition.timeoutSeconds == 30)
        #expect(byName["regional"]?.definition.regions == ["us-east1", "asia-northeast1"] && byName["regional"]?.definition.region == "us-east1")
        #expect(byName["onTask"]?.definition.trigger == .document(pattern: "tasks/{taskId}", event: .written))
        #expect(byName["onTask"]?.signatureType == "cloudevent" && byName["onTask"]?.eventType == "google.cloud.firestore.document.v1.written")
        #expect(byName["onNote"]?.definition.trigger == .document(pattern: "notes/n1", event: .created))
        #expect(byName["onNote"]?.eventType == "google.cloud.firestore.document.v1.created.withAuthContext")
        #expect(byName["beforecreated"]?.definition.trigger == .blocking(event: "beforeCreate"))
        #expect(byName["beforesignedin"]?.definition.trigger == .blocking(event: "beforeSignIn"))
        #expect(byName["beforecreated"]?.forwardedCredentials == ["idToken"] && byName["beforesignedin"]?.forwardedCredentials == [])
        #expect(byName["tick"]?.definition.trigger == .scheduled(schedule: "every 5 minutes", timeZone: "Europe/Paris"))
        #expect(byName["tick"]?.definition.retry == true && byName["tick"]?.definition.maxAttempts == 3)
        #expect(byName["orders"]?.definition.trigger == .pubsub(topic: "orders") && byName["orders"]?.definition.retry == true)
        #expect(byName["work"]?.definition.trigger == .taskQueue && byName["work"]?.definition.maxAttempts == 5)
        #expect(byName["bucket"]?.definition.trigger == .storage(bucket: "b", event: "finalized") && byName["bucket"]?.signatureType == "cloudevent")
    }

    @Test func leavesOutWhatItCannotServeWithAReason() throws {
        let m = try FunctionManifest(json: sdkManifest)
        #expect(m.warnings.count == 3)
        #expect(m.warnings.contains("elsewhere: triggers on database 'other' are not emulated (only (default))"))
        #expect(m.warnings.contains("beforeemail: blocking event 'providers/cloud.auth/eventTypes/user.beforeSendEmail' is not emulated"))
        #expect(m.warnings.contains("bad name!: 'bad name!' is not a valid function name"))
    }

    @Test func paramsKeepLiteralDefaultsOnly() throws {
        let m = try FunctionManifest(json: sdkManifest)
        #expect(
            m.params == [
                ManifestParam(name: "GREETING", type: "string", defaultValue: "hello"), ManifestParam(name: "MAX", type: "int", defaultValue: "3"),
                ManifestParam(name: "ON", type: "boolean", defaultValue: "true"),
                ManifestParam(name: "LIST", type: "list", defaultValue: #"["a","b"]"#),
                ManifestParam(name: "EXPR", type: "string", defaultValue: nil), ManifestParam(name: "KEY", type: "secret", defaultValue: nil),
            ])
    }

    @Test func refusesWhatIsNotAManifest() {
        #expect(throws: HttpsError.self) { try FunctionManifest(json: "text") }
        #expect(throws: HttpsError.self) { try FunctionManifest(json: ["specVersion": "v2", "endpoints": [:]]) }
        #expect((try? FunctionManifest(json: ["specVersion": "v1alpha1"]))?.endpoints.isEmpty == true)
    }
}
