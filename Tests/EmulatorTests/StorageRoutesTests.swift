import EmulatorCore
import EmulatorHTTP
import EmulatorStorage
import Testing

@testable import Emulator

/// Storage's adapters through the pipeline without sockets (the wire is pinned by
/// Tests/python/storage with real clients).
@Suite struct StorageRoutesTests {
    static func app() throws -> EmulatorApp {
        EmulatorApp(services: try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink()))
    }

    static func request(_ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = []) -> HTTPRequest {
        var h = HTTPHeaders()
        for (n, v) in headers { h.add(n, v) }
        return HTTPRequest(method: method, target: target, headers: h, body: body)
    }

    @Test func aFirebaseUploadIsReadBackThroughBothAPIs() async throws {
        let app = try Self.app()
        let up = await app.handle(
            Self.request(
                "POST", "/v0/b/demo-project.appspot.com/o?name=a%2Fb.txt", body: Array("hi".utf8),
                headers: [("Content-Type", "text/plain")]))
        #expect(up.status == 200)
        let meta = try JSON.parse(up.body)
        #expect(meta["size"] == "2" && meta["contentType"] == "text/plain" && meta["downloadTokens"]?.stringValue?.count == 36)
        let media = await app.handle(Self.request("GET", "/v0/b/demo-project.appspot.com/o/a%2Fb.txt?alt=media"))
        #expect(media.body == Array("hi".utf8) && media.headers["Content-Disposition"] == "inline; filename*=utf-8''b.txt")
        let gcs = await app.handle(Self.request("GET", "/storage/v1/b/demo-project.appspot.com/o/a%2Fb.txt"))
        let o = try JSON.parse(gcs.body)
        #expect(o["kind"] == "storage#object" && o["metadata"]?["firebaseStorageDownloadTokens"] == meta["downloadTokens"])
    }

    @Test func eachAPIHasItsErrorShape() async throws {
        let app = try Self.app()
        let gcs = try JSON.parse(await app.handle(Self.request("GET", "/storage/v1/b/demo-project.appspot.com/o/missing")).body)
        #expect(gcs["error"]?["errors"]?.arrayValue?.first?["reason"] == "notFound" && gcs["error"]?["status"] == nil)
        let firebase = try JSON.parse(await app.handle(Self.request("GET", "/v0/b/demo-project.appspot.com/o/missing")).body)
        #expect(firebase["error"]?["code"] == 404)
        let xml = await app.handle(Self.request("GET", "/demo-project.appspot.com/missing"))
        #expect(xml.status == 404 && String(decoding: xml.body, as: UTF8.self).contains("<Code>NoSuchKey</Code>"))
        // A two-segment path that names no bucket is not Storage's: the router's own 404.
        let other = try JSON.parse(await app.handle(Self.request("GET", "/no-such-bucket-here/x")).body)
        #expect(other["error"]?["status"] == "NOT_FOUND")
        let unimplemented = await app.handle(Self.request("POST", "/storage/v1/b/demo-project.appspot.com/iam"))
        #expect(unimplemented.status == 501)
    }

    @Test func theStreamingPolicyPicksUploadsOnly() throws {
        let s = try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
        let policy = StorageRoutes.streamingPolicy(s.storage)
        let limit = Int(5 << 30) + (2 << 20)
        #expect(policy(Self.request("POST", "/v0/b/x/o?name=a")) == limit)
        #expect(policy(Self.request("PUT", "/upload/storage/v1/b/x/o?upload_id=1")) == limit)
        #expect(policy(Self.request("POST", "/b/x/o?uploadType=media&name=a")) == limit)
        #expect(policy(Self.request("POST", "/b/x/o")) == nil)
        #expect(policy(Self.request("PUT", "/demo-project.appspot.com/dir/file")) == limit)
        #expect(policy(Self.request("POST", "/demo-project.appspot.com")) == limit)
        #expect(policy(Self.request("PUT", "/not-a-bucket/file")) == nil)
        #expect(policy(Self.request("POST", "/demo-project/us-central1/callable")) == nil)
        #expect(policy(Self.request("GET", "/v0/b/x/o/a")) == nil)
        #expect(policy(Self.request("PATCH", "/v0/b/x/o/a")) == nil)
        // The XML paths' bucket is the first segment, percent-decoded; a trailing slash is a
        // second (empty) segment, so a POST there is not the bucket's upload.
        #expect(policy(Self.request("POST", "/demo-project.appspot.com/")) == nil)
        #expect(policy(Self.request("PUT", "/demo-project.appspot.com/")) == limit)
        #expect(policy(Self.request("POST", "/demo%2Dproject.appspot.com")) == limit)
        #expect(policy(Self.request("POST", "/v1/projects/demo-project/databases/(default)/documents/c")) == nil)
    }

    @Test func theFirstSegmentIsTheTextAfterTheFirstSlash() {
        func segment(_ p: String) -> String? { StorageRoutes.firstSegment(p).map { "\($0.0) \($0.1)" } }
        #expect(segment("/a/b/c") == "a true")
        #expect(segment("/a") == "a false")
        #expect(segment("/a/") == "a true")
        #expect(segment("/") == " false")
        #expect(segment("x/y") == "y false")
        #expect(segment("none") == nil)
    }

    @Test func faultTargetsNameStorageOperations() throws {
        let s = try EmulatorServices(config: EmulatorConfig(), logger: NullLogSink())
        let router = Routes.makeRouter(s)
        func classify(_ method: String, _ target: String, _ headers: [(String, String)] = []) -> String? {
            let req = Self.request(method, target, headers: headers)
            guard case .success(let path) = RequestPath.normalized(req.path), case .found(_, let match) = router.resolve(method: method, path: path),
                let (project, t) = RequestClassifier.classify(req, path, match, projects: s.projects, storage: s.storage), t.service == "storage"
            else { return nil }
            return "\(project) \(t.method) \(t.path)"
        }
        let b = "demo-project.appspot.com"
        #expect(classify("GET", "/v0/b/\(b)/o/a%2Fb") == "demo-project get \(b)/a/b")
        #expect(classify("GET", "/v0/b/\(b)/o/a?alt=media") == "demo-project download \(b)/a")
        #expect(classify("GET", "/v0/b/\(b)/o") == "demo-project list \(b)")
        #expect(classify("POST", "/v0/b/\(b)/o?name=x") == "demo-project upload \(b)")
        #expect(classify("POST", "/v0/b/\(b)/o/x", [("X-HTTP-Method-Override", "PATCH")]) == "demo-project update \(b)/x")
        #expect(classify("POST", "/v0/b/\(b)/o/x?create_token=true") == "demo-project createToken \(b)/x")
        #expect(classify("POST", "/storage/v1/b/\(b)/o/x/copyTo/b/\(b)/o/y") == "demo-project copy \(b)/x")
        #expect(classify("POST", "/storage/v1/b/\(b)/o/x/compose") == "demo-project compose \(b)/x")
        #expect(classify("GET", "/storage/v1/b?project=demo-project") == "demo-project listBuckets ")
        #expect(classify("DELETE", "/storage/v1/b/\(b)") == "demo-project deleteBucket \(b)")
        #expect(classify("PUT", "/upload/storage/v1/b/\(b)/o?upload_id=1") == "demo-project upload \(b)")
        #expect(classify("GET", "/other.appspot.com/file") == "other download other.appspot.com/file")
        #expect(classify("GET", "/no-such-bucket-here/file") == nil)
    }
}
