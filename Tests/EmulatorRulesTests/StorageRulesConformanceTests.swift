import EmulatorCore
import Foundation
import Testing

@testable import EmulatorRules

/// Storage rules (`service firebase.storage`) on the rules engine: the rows of
/// Conformance/storage-rulesets.json (size, content type, custom metadata, auth, overwrite as
/// `update`, `list` and rules_version, cross-service `firestore.get/exists`, `request.path`,
/// `md5Hash`), each with the verdict production gives and, where it matters, the explanation.
@Suite struct StorageRulesConformanceTests {
    @Test func storageRulesetCases() throws {
        let suites = try #require(try conformanceFile("storage-rulesets").arrayValue)
        var rows = 0
        for s in suites {
            let source = try #require(s["rules"]?.stringValue)
            let rs: CompiledRuleset
            switch CompiledRuleset.compile(fileName: "storage.rules", source: source, service: RulesService.storage) {
            case .success(let r): rs = r
            case .failure(let e):
                Issue.record("\(s["name"] ?? ""): \(e)")
                continue
            }
            let data = DictionarySource(
                docs: (s["data"]?.objectValue?.dictionary ?? [:]).mapValues { ($0.objectValue?.dictionary ?? [:]).mapValues(rulesValue) })
            for c in s["cases"]?.arrayValue ?? [] {
                rows += 1
                let name = c["name"]?.stringValue ?? "?"
                let method = try #require(RulesMethod(rawValue: c["method"]?.stringValue ?? ""))
                var claims: UTF8Dictionary<JSON> = c["claims"]?.objectValue ?? [:]
                let auth = c["uid"]?.stringValue.map { uid -> AuthContext in
                    claims["sub"] = .string(uid)
                    return AuthContext(uid: uid, token: claims)
                }
                let req = RulesRequest.storage(
                    method: method, bucket: c["bucket"]?.stringValue ?? "demo.appspot.com",
                    path: (c["path"]?.stringValue ?? "").split(separator: "/").map(String.init), auth: auth,
                    time: Timestamp(seconds: 1_800_000_000),
                    resource: c["resource"]?.objectValue?.dictionary.mapValues(rulesValue),
                    requestResource: c["requestResource"]?.objectValue?.dictionary.mapValues(rulesValue))
                let d = rs.evaluate(req, data: data)
                #expect(d.allowed == c["allow"]?.boolValue, "\(s["name"]!) / \(name): \(d.explanation)")
                if let fragment = c["explains"]?.stringValue {
                    #expect(d.explanation.contains(fragment), "\(name): explanation lacks '\(fragment)':\n\(d.explanation)")
                }
            }
        }
        #expect(rows >= 30)
    }

    @Test func eachServiceTakesOnlyItsOwnRules() {
        let storage = "rules_version = '2';\nservice firebase.storage { match /b/{bucket}/o { match /{p=**} { allow read; } } }"
        guard case .failure(let e) = CompiledRuleset.compile(source: storage) else {
            Issue.record("Firestore accepted Storage rules")
            return
        }
        #expect(e.description.contains("expected cloud.firestore"))
        let firestore = "service cloud.firestore { match /databases/{db}/documents { match /{d=**} { allow read; } } }"
        guard case .failure(let e2) = CompiledRuleset.compile(source: firestore, service: RulesService.storage) else {
            Issue.record("Storage accepted Firestore rules")
            return
        }
        #expect(e2.description.contains("expected firebase.storage"))
        // `firestore.get` is Storage's; Firestore rules call `get` directly.
        let crossInFirestore =
            "service cloud.firestore { match /databases/{db}/documents { match /{d=**} { allow read: if firestore.exists(/databases/x/documents/a/b); } } }"
        guard case .failure = CompiledRuleset.compile(source: crossInFirestore) else {
            Issue.record("firestore.exists accepted in Firestore rules")
            return
        }
    }
}
