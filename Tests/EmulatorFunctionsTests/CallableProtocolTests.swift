import EmulatorCore
import Testing

@testable import EmulatorFunctions

@Suite struct CallableProtocolTests {
    @Test(arguments: [
        ("POST", "application/json", #"{"data": {"a": 1}}"#, true),
        ("POST", "application/json; charset=utf-8", #"{"data": null}"#, true),
        ("GET", "application/json", #"{"data": 1}"#, false),
        ("POST", "text/plain", #"{"data": 1}"#, false),
        ("POST", "application/json", #"{"data": 1, "extra": 2}"#, false),
        ("POST", "application/json", #"{"nodata": 1}"#, false),
        ("POST", "application/json", "not json", false),
    ])
    func validatesRequests(method: String, contentType: String, body: String, ok: Bool) {
        do {
            _ = try CallableProtocol.decodeRequest(method: method, contentType: contentType, body: Array(body.utf8))
            #expect(ok)
        } catch let e as HttpsError {
            #expect(!ok)
            #expect(e == HttpsError(.invalidArgument, "Bad Request"))
        } catch { Issue.record("\(error)") }
    }

    @Test func unwrapsInt64Wrappers() throws {
        let v = try CallableProtocol.decode([
            "n": ["@type": "type.googleapis.com/google.protobuf.Int64Value", "value": "9007199254740993"],
            "l": [["@type": "type.googleapis.com/google.protobuf.UInt64Value", "value": "5"]],
        ])
        #expect(v == ["n": .int(9_007_199_254_740_993), "l": [5]])
        #expect(throws: HttpsError.self) { try CallableProtocol.decode(["@type": "type.googleapis.com/google.protobuf.Other", "value": "1"]) }
    }

    /// A wrapper that cannot be decoded is the caller's bad input: 400 INVALID_ARGUMENT, not a 500.
    @Test(arguments: [
        #"{"data": {"@type": "type.googleapis.com/google.protobuf.Any", "value": "1"}}"#,
        #"{"data": {"@type": "type.googleapis.com/google.protobuf.Int64Value"}}"#,
        #"{"data": {"@type": "type.googleapis.com/google.protobuf.Int64Value", "value": 5}}"#,
        #"{"data": [{"@type": "type.googleapis.com/google.protobuf.UInt64Value", "value": "twelve"}]}"#,
    ])
    func undecodableWrappersAreBadRequests(body: String) {
        #expect(throws: HttpsError(.invalidArgument, "Bad Request")) {
            try CallableProtocol.decodeRequest(method: "POST", contentType: "application/json", body: Array(body.utf8))
        }
    }

    @Test func errorsMapToStatusAndShape() {
        let (s1, b1) = CallableProtocol.failure(HttpsError(.failedPrecondition, "recent sign-in", details: ["x": 1]))
        #expect(s1 == 400)
        #expect(b1 == ["error": ["status": "FAILED_PRECONDITION", "message": "recent sign-in", "details": ["x": 1]]])
        struct Oops: Error {}
        let (s2, b2) = CallableProtocol.failure(Oops())
        #expect(s2 == 500)
        #expect(b2 == ["error": ["status": "INTERNAL", "message": "INTERNAL"]])
        #expect(CallableProtocol.failure(HttpsError(.unauthenticated, "x")).status == 401)
        #expect(CallableProtocol.success(["ok": true]).body == ["result": ["ok": true]])
    }

    @Test(
        arguments: [
            ("tasks/{taskId}", "tasks/t1", ["taskId": "t1"]),
            ("users/{uid}/notes/{id}", "users/u/notes/n", ["uid": "u", "id": "n"]),
            ("tasks/{taskId}", "tasks/t1/sub/x", nil),
            ("tasks/{taskId}", "users/u1", nil),
        ] as [(String, String, [String: String]?)])
    func documentPatterns(pattern: String, path: String, expected: [String: String]?) {
        #expect(DocumentPattern.match(pattern, path) == expected)
    }
}
