import EmulatorCore
import EmulatorRules
import Testing

@testable import Emulator

/// Which Storage rules judge a bucket (per-bucket files, the single file, the open default) and
/// the per-bucket coverage route. End to end with firebase.json targets:
/// Tests/python/storage/test_storage_rules.py.
@Suite struct StorageRulesetsTests {
    static let allowRead = "rules_version = '2';\nservice firebase.storage { match /b/{bucket}/o { match /{f=**} { allow read; } } }"
    static let denyAll = "rules_version = '2';\nservice firebase.storage { match /b/{bucket}/o { match /{f=**} { allow read: if false; } } }"

    @Test func eachBucketGetsItsOwnRulesAndUnnamedBucketsAreDenied() throws {
        let dir = try TempDir()
        let a = try dir.write("a.rules", Self.allowRead), b = try dir.write("b.rules", Self.denyAll)
        let sets = try StorageRulesets(filePath: nil, bucketPaths: ["bucket-a": a, "bucket-b": b], logger: NullLogSink())
        guard case .rules(let ra) = sets.selection(project: "p", bucket: "bucket-a"),
            case .rules(let rb) = sets.selection(project: "p", bucket: "bucket-b")
        else {
            Issue.record("named buckets have no rules")
            return
        }
        #expect(ra.fileName == "a.rules" && rb.fileName == "b.rules")
        guard case .unconfigured(let names) = sets.selection(project: "p", bucket: "other") else {
            Issue.record("an unnamed bucket was not refused")
            return
        }
        #expect(names == ["bucket-a", "bucket-b"])
        // With a single file as well, unnamed buckets use it.
        let withFallback = try StorageRulesets(filePath: b, bucketPaths: ["bucket-a": a], logger: NullLogSink())
        guard case .rules(let rf) = withFallback.selection(project: "p", bucket: "other") else {
            Issue.record("the single file does not judge unnamed buckets")
            return
        }
        #expect(rf.fileName == "b.rules")
        // Nothing configured: the open default.
        guard case .open = try StorageRulesets(filePath: nil, bucketPaths: [:], logger: NullLogSink()).selection(project: "p", bucket: "x") else {
            Issue.record("no rules is not the open default")
            return
        }
    }

    @Test func unnamedBucketsAreDeniedWithAReasonAndCoverageIsPerBucket() async throws {
        let dir = try TempDir()
        let a = try dir.write("a.rules", Self.allowRead)
        var config = EmulatorConfig()
        config.storageBucketRulesPaths = ["demo-project.appspot.com": a]
        let app = EmulatorApp(services: try EmulatorServices(config: config, logger: NullLogSink()))
        let up = await app.handle(
            StorageRoutesTests.request(
                "POST", "/v0/b/demo-project.appspot.com/o?name=x", body: Array("hi".utf8), headers: [("Content-Type", "text/plain")]))
        #expect(up.status == 403)
        let got = await app.handle(StorageRoutesTests.request("GET", "/v0/b/demo-project.firebasestorage.app/o/x"))
        #expect(got.status == 403)
        #expect(String(decoding: got.body, as: UTF8.self).contains("no Storage rules are loaded for bucket 'demo-project.firebasestorage.app'"))
        let cov = await app.handle(
            StorageRoutesTests.request("GET", "/emulator/v1/projects/demo-project/storage/buckets/demo-project.appspot.com:ruleCoverage"))
        #expect(cov.status == 200 && String(decoding: cov.body, as: UTF8.self).contains("a.rules"))
        let none = await app.handle(
            StorageRoutesTests.request("GET", "/emulator/v1/projects/demo-project/storage/buckets/demo-project.firebasestorage.app:ruleCoverage"))
        #expect(none.status == 404)
    }
}
