import EmulatorCore
import Testing

@testable import EmulatorFunctions

#if canImport(Glibc)
import Glibc
#endif

/// The requests Python functions get and the answers read back: blocking JWTs, CloudEvents,
/// scheduler and task headers, output tagging.
@Suite struct PythonWireTests {
    let user: JSON = [
        "localId": "u1", "email": "a@b.c", "emailVerified": true, "displayName": "Ann", "photoUrl": "https://p/x.png",
        "disabled": false, "createdAt": "1700000000000", "lastLoginAt": "1700000001000", "validSince": "1700000000",
        "customAttributes": #"{"role":"admin"}"#, "tenantId": "t1",
        "providerUserInfo": [["providerId": "password", "rawId": "a@b.c", "federatedId": "a@b.c", "email": "a@b.c"]],
        "mfaInfo": [["mfaEnrollmentId": "m1", "phoneInfo": "+15555550100", "displayName": "phone", "enrolledAt": "2024-01-01T00:00:00Z"]],
    ]

    @Test func blockingClaimsCarryTheUserRecordInSnakeCase() {
        let c = BlockingPayload.claims(
            project: "demo-p", event: "beforeCreate", signInMethod: "password", user: user, eventId: "e1",
            now: Timestamp(seconds: 1_700_000_100), audience: "https://aud")
        #expect(c["iss"] == "https://securetoken.google.com/demo-p" && c["sub"] == "u1" && c["aud"] == "https://aud")
        #expect(c["iat"] == 1_700_000_100 && c["exp"] == 1_700_003_700 && c["event_id"] == "e1" && c["event_type"] == "beforeCreate")
        #expect(c["ip_address"] == "127.0.0.1" && c["user_agent"] != nil && c["sign_in_method"] == "password" && c["tenant_id"] == "t1")
        #expect(
            c["user_record"] == [
                "uid": "u1", "email": "a@b.c", "email_verified": true, "display_name": "Ann", "photo_url": "https://p/x.png", "disabled": false,
                "tenant_id": "t1", "custom_claims": ["role": "admin"], "tokens_valid_after_time": 1_700_000_000,
                "metadata": ["creation_time": 1_700_000_000_000, "last_sign_in_time": 1_700_000_001_000],
                "provider_data": [["uid": "a@b.c", "provider_id": "password", "email": "a@b.c"]],
                "multi_factor": [
                    "enrolled_factors": [
                        [
                            "uid": "m1", "factor_id": "phone", "display_name": "phone", "phone_number": "+15555550100",
                            "enrollment_time": "2024-01-01T00:00:00Z",
                        ]
                    ]
                ],
            ])
    }

    @Test func blockingClaimsCarryTheCredentialAndOnlyTheTokensAskedFor() {
        let credential: JSON = [
            "rawUserInfo": #"{"sub":"g1"}"#, "signInAttributes": ["role": ["admin"]], "idToken": "it", "accessToken": "at",
            "refreshToken": "rt", "tokenSecret": "ts", "expiresIn": 3600,
        ]
        func claims(_ forward: Set<String>) -> UTF8Dictionary<JSON> {
            BlockingPayload.claims(
                project: "p", event: "beforeSignIn", signInMethod: "google.com", user: user, eventId: "e", now: Timestamp(seconds: 1),
                audience: "a", secondFactor: "totp", credential: credential, locale: "fr", forward: forward)
        }
        let none = claims([])
        #expect(none["raw_user_info"] == #"{"sub":"g1"}"# && none["sign_in_attributes"] == ["role": ["admin"]] && none["locale"] == "fr")
        #expect(none["sign_in_second_factor"] == "totp")
        #expect(none["oauth_id_token"] == nil && none["oauth_access_token"] == nil && none["oauth_refresh_token"] == nil)
        let all = claims(["idToken", "accessToken", "refreshToken"])
        #expect(all["oauth_id_token"] == "it" && all["oauth_access_token"] == "at" && all["oauth_refresh_token"] == "rt")
        #expect(all["oauth_token_secret"] == "ts" && all["oauth_expires_in"] == 3600)
    }

    @Test func aNewUserHasTheRequiredFieldsEvenWhenEmpty() {
        let r = BlockingPayload.userRecord(["localId": "u2", "createdAt": "5"])
        #expect(r["metadata"] == ["creation_time": 5] && r["provider_data"] == [] && r["custom_claims"] == nil)
    }

    @Test func theJWTIsUnsignedAndDecodable() throws {
        let jwt = BlockingPayload.unsignedJWT(["sub": "u1"])
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[2].isEmpty)
        #expect(try JSON.parse(Base64.decode(String(parts[0]).base64Padded)!) == ["alg": "none", "typ": "JWT"])
        #expect(try JSON.parse(BlockingPayload.body(jwt: "x.y.")) == ["data": ["jwt": "x.y."]])
    }

    @Test func onlyMaskedChangesApplyAndBothPhotoSpellingsCount() throws {
        let answer: JSON = [
            "userRecord": [
                "displayName": "New", "photoURL": "https://p/new.png", "disabled": true, "customClaims": ["a": 1],
                "updateMask": "displayName,photoURL,customClaims",
            ]
        ]
        #expect(
            try BlockingPayload.changes(fromResponse: answer) == ["displayName": "New", "photoUrl": "https://p/new.png", "customClaims": ["a": 1]])
        #expect(
            try BlockingPayload.changes(fromResponse: ["userRecord": ["photoUrl": "https://q", "updateMask": "photoUrl"]]) == [
                "photoUrl": "https://q"
            ])
        #expect(
            try BlockingPayload.changes(fromResponse: ["userRecord": ["sessionClaims": ["s": true], "updateMask": "sessionClaims"]]) == [
                "sessionClaims": ["s": true]
            ])
        #expect(try BlockingPayload.changes(fromResponse: [:]) == nil)
        #expect(try BlockingPayload.changes(fromResponse: ["userRecord": ["displayName": "x"]]) == nil)
        #expect(throws: HttpsError.self) { try BlockingPayload.changes(fromResponse: ["userRecord": "x"]) }
        #expect(throws: HttpsError.self) { try BlockingPayload.changes(fromResponse: [1]) }
    }

    func event(_ type: String = "document.updated", attempt: Int = 1, after: JSON? = nil) -> BackgroundEvent {
        var e = BackgroundEvent(
            id: "ev1", type: type, time: Timestamp(seconds: 1_700_000_000, nanos: 123_456_789), subject: "tasks/t1",
            params: ["taskId": "t1"], before: nil, after: after)
        e.attempt = attempt
        return e
    }

    @Test func firestoreEventsAreBinaryModeCloudEvents() {
        let r = PlatformRequest.firestore(
            project: "demo-p", location: "us-central1", eventType: "google.cloud.firestore.document.v1.written",
            event: event(), data: [1, 2, 3])
        #expect(r.method == "POST" && r.path == "/" && r.body == [1, 2, 3])
        #expect(
            r.headers == [
                "Content-Type": "application/protobuf", "ce-specversion": "1.0", "ce-id": "ev1",
                "ce-type": "google.cloud.firestore.document.v1.written",
                "ce-source": "//firestore.googleapis.com/projects/demo-p/databases/(default)", "ce-time": "2023-11-14T22:13:20.123456789Z",
                "ce-subject": "documents/tasks/t1", "ce-dataschema": PlatformRequest.firestoreDataSchema, "ce-location": "us-central1",
                "ce-project": "demo-p", "ce-database": "(default)", "ce-namespace": "(default)", "ce-document": "tasks/t1",
            ])
        let auth = PlatformRequest.firestore(
            project: "p", location: "l", eventType: "google.cloud.firestore.document.v1.created.withAuthContext",
            event: event(), data: [], authType: "service_account", authId: "sa@p")
        #expect(auth.headers["ce-authtype"] == "service_account" && auth.headers["ce-authid"] == "sa@p")
    }

    @Test func updateMasksNameTheChangedTopLevelFields() {
        let before: JSON = ["fields": ["a": ["integerValue": "1"], "b": ["stringValue": "x"], "gone": ["nullValue": nil]]]
        let after: JSON = ["fields": ["a": ["integerValue": "2"], "b": ["stringValue": "x"], "new": ["booleanValue": true]]]
        #expect(PlatformRequest.changedFields(before: before, after: after) == ["a", "gone", "new"])
        #expect(PlatformRequest.changedFields(before: ["name": "x"], after: after) == ["a", "b", "new"])
    }

    @Test func pubsubMessagesAreStructuredCloudEventsWithBothSpellings() throws {
        let message: JSON = ["data": "eyJ4IjoxfQ==", "attributes": ["k": "v"], "messageId": "42", "publishTime": "2023-11-14T22:13:20.123456789Z"]
        let r = PlatformRequest.pubsub(project: "p", topic: "orders", subscription: "sub", event: event("pubsub.published", after: message))
        #expect(r.headers == ["Content-Type": "application/cloudevents+json"])
        let ce = try JSON.parse(r.body)
        #expect(ce["type"] == "google.cloud.pubsub.topic.v1.messagePublished" && ce["source"] == "//pubsub.googleapis.com/projects/p/topics/orders")
        #expect(ce["time"] == "2023-11-14T22:13:20.123456Z" && ce["specversion"] == "1.0" && ce["id"] == "ev1")
        #expect(ce["data"]?["subscription"] == "projects/p/subscriptions/sub")
        #expect(
            ce["data"]?["message"] == [
                "data": "eyJ4IjoxfQ==", "attributes": ["k": "v"], "messageId": "42", "message_id": "42",
                "publishTime": "2023-11-14T22:13:20.123456Z", "publish_time": "2023-11-14T22:13:20.123456Z",
            ])
    }

    @Test func storageEventsAreStructuredCloudEventsCarryingTheObject() throws {
        let object: JSON = [
            "kind": "storage#object", "name": "a/b.png", "bucket": "p.appspot.com", "size": "3", "generation": "1", "metageneration": "1",
        ]
        let r = PlatformRequest.storage(bucket: "p.appspot.com", event: "finalized", event("storage.finalized", after: object))
        #expect(r.headers == ["Content-Type": "application/cloudevents+json"])
        let ce = try JSON.parse(r.body)
        #expect(
            ce["type"] == "google.cloud.storage.object.v1.finalized" && ce["source"] == "//storage.googleapis.com/projects/_/buckets/p.appspot.com")
        #expect(ce["subject"] == "objects/a/b.png" && ce["data"] == object && ce["specversion"] == "1.0" && ce["id"] == "ev1")
        #expect(ce["time"]?.stringValue?.contains(".") == true)  // the Python SDK's strptime needs fractional seconds
    }

    @Test func schedulerAndTaskRequestsCarryTheirHeaders() {
        let s = PlatformRequest.scheduled(name: "tick", region: "us-central1", scheduleTime: Timestamp(seconds: 1_700_000_000))
        #expect(
            s.headers["X-CloudScheduler-JobName"] == "firebase-schedule-tick-us-central1"
                && s.headers["X-CloudScheduler-ScheduleTime"] == "2023-11-14T22:13:20Z")
        #expect(s.body.isEmpty)
        let task: JSON = ["body": .string(Base64.encode(Array(#"{"data":1}"#.utf8))), "headers": ["X-Custom": "c"], "taskId": "t9", "queue": "work"]
        let t = PlatformRequest.task(project: "p", region: "us-central1", event: event("task.dispatched", attempt: 3, after: task))
        #expect(t.body == Array(#"{"data":1}"#.utf8))
        #expect(t.headers["X-CloudTasks-QueueName"] == "work" && t.headers["X-CloudTasks-TaskName"] == "t9" && t.headers["X-Custom"] == "c")
        #expect(t.headers["X-CloudTasks-TaskRetryCount"] == "2" && t.headers["Content-Type"] == "application/json")
        // Seconds with six decimals, as String(format: "%.6f") wrote them.
        #expect(PlatformRequest.secondsText(1_700_000_000_250_000) == "1700000000.250000")
        #expect(PlatformRequest.secondsText(5) == "0.000005" && PlatformRequest.secondsText(0) == "0.000000")
        #expect(PlatformRequest.secondsText(-1_500_000) == "-1.500000")
    }

    @Test func fieldPathsQuoteWhatIsNotAnIdentifier() {
        #expect(PlatformRequest.fieldPath("count") == "count" && PlatformRequest.fieldPath("_a1") == "_a1")
        #expect(PlatformRequest.fieldPath("1st") == "`1st`" && PlatformRequest.fieldPath("a-b") == "`a-b`")
        #expect(PlatformRequest.fieldPath(#"we`ird\"#) == #"`we\`ird\\`"#)
    }

    @Test func launcherEventsParseAndNumbersOutOfRangeAreRefused() {
        #expect(
            LauncherEvent.parse(#"{"ev": "exit", "id": "a#1", "pid": 4242, "status": 3}"#) == .exited(id: "a#1", pid: 4242, status: 3, signal: nil))
        #expect(LauncherEvent.parse(#"{"ev": "spawned", "id": "f#2", "pid": 7, "port": 8123}"#) == .spawned(id: "f#2", pid: 7, port: 8123))
        #expect(LauncherEvent.parse(#"{"ev": "ready", "id": "f#2", "port": 8123}"#) == .started(id: "f#2", port: 8123))
        // Found by the fuzzer: a pid beyond Int32 trapped.
        #expect(LauncherEvent.parse(#"{"ev": "exit", "id": "a#1", "pid": 58888888888888}"#) == nil)
        #expect(LauncherEvent.parse(#"{"ev": "spawned", "id": "a#1", "pid": -1, "port": 1}"#) == nil)
        #expect(LauncherEvent.parse("not json") == nil && LauncherEvent.parse(#"{"ev": "unknown"}"#) == nil)
    }

    @Test func outputLinesAreAttributedByTheirTag() {
        #expect(OutputLine("\u{1E}i7\u{1F}hello") == OutputLine(invocation: "i7", text: "hello", isEnd: false))
        #expect(OutputLine("\u{1E}i7\u{1F}\u{1D}END") == OutputLine(invocation: "i7", text: "\u{1D}END", isEnd: true))
        #expect(OutputLine("plain") == OutputLine(invocation: nil, text: "plain", isEnd: false))
        #expect(OutputLine("\u{1E}no separator") == OutputLine(invocation: nil, text: "\u{1E}no separator", isEnd: false))
        #expect(OutputLine("") == OutputLine(invocation: nil, text: "", isEnd: false))
    }

    @Test func tracebacksAndWorkerDeathsAreRecognised() {
        let lines = [
            " * Serving Flask app", "[2026] ERROR in app: Exception on /__/functions.yaml [GET]", "Traceback (most recent call last):",
            #"  File "main.py", line 3, in <module>"#, "ZeroDivisionError: division by zero",
            #"127.0.0.1 - - [23/Nov/2026 02:43:20] "GET /__/functions.yaml HTTP/1.1" 500 -"#,
        ]
        #expect(
            PythonCodebase.traceback(lines)
                == "Traceback (most recent call last):\n  File \"main.py\", line 3, in <module>\nZeroDivisionError: division by zero")
        #expect(PythonCodebase.traceback(["only", "lines"]) == "only\nlines")
        #expect(PythonCodebase.workerDeath("[2026-11-23 02:43:18 +0000] [25973] [ERROR] Worker (pid:25974) exited with code 7.") == "exit status 7")
        #expect(PythonCodebase.workerDeath("[ERROR] Worker (pid:1) was sent SIGKILL! Perhaps out of memory?") == "killed by SIGKILL")
        #expect(PythonCodebase.workerDeath("Worker booted") == nil)
    }
}

extension String {
    var base64Padded: String { self + String(repeating: "=", count: (4 - count % 4) % 4) }
}

@Suite struct PythonCodebaseConfigTests {
    @Test func decodesEntriesWithDefaults() throws {
        let c = try PythonCodebaseConfig(json: [
            "source": "/src", "codebase": "web", "runtime": "python312", "ignore": ["venv", "*.tmp"], "env": ["A": "1", "B": 2],
        ])
        #expect(c.name == "web" && c.source == "/src" && c.venv == "/src/venv" && c.interpreter == "python3.12" && c.ignore == ["venv", "*.tmp"])
        #expect(c.environment == ["A": "1"] && c.installDependencies && c.prefork && !c.prestart && c.watch && c.startTimeoutSeconds == 30)
        let d = try PythonCodebaseConfig(json: [
            "source": "/src", "name": "n", "prefork": false, "prestart": true, "watch": false, "startTimeoutSeconds": 5,
        ])
        #expect(d.name == "n" && !d.prefork && d.prestart && !d.watch && d.startTimeoutSeconds == 5 && d.interpreter == "python3")
    }

    @Test(arguments: [
        (#"{"source": "/s", "commnd": 1}"#, "unknown key 'commnd'"),
        (#"{"name": "x"}"#, "needs a 'source' folder"),
        (#"{"source": "/s", "runtime": "nodejs20"}"#, "is not a Python runtime"),
        (#"{"source": "/s", "prefork": "yes"}"#, "'prefork' must be true or false"),
        (#"{"source": "/s", "name": "a b"}"#, "may hold only letters"),
        (#"{"source": "/s", "startTimeoutSeconds": 0}"#, "startTimeoutSeconds"),
    ])
    func badEntriesNameTheProblem(text: String, fragment: String) throws {
        do {
            _ = try PythonCodebaseConfig(json: try JSON.parse(text))
            Issue.record("expected an error for \(text)")
        } catch let e as HttpsError {
            #expect(e.message.contains(fragment), "\(e.message)")
        }
    }

    @Test func ignorePatternsMatchLikeFirebaseJSON() {
        let patterns = ["*.log", "build/**", "/secret.txt", "data/*.csv"]
        #expect(SourceStamp.isIgnored("venv/lib/site.py", patterns: []))
        #expect(SourceStamp.isIgnored("pkg/__pycache__/m.pyc", patterns: []))
        #expect(SourceStamp.isIgnored("debug.log", patterns: patterns) && SourceStamp.isIgnored("sub/x.log", patterns: patterns))
        #expect(SourceStamp.isIgnored("build/a/b.py", patterns: patterns) && SourceStamp.isIgnored("secret.txt", patterns: patterns))
        #expect(SourceStamp.isIgnored("data/x.csv", patterns: patterns) && !SourceStamp.isIgnored("data/x.json", patterns: patterns))
        #expect(!SourceStamp.isIgnored("main.py", patterns: patterns) && !SourceStamp.isIgnored(".env", patterns: patterns))
        #expect(SourceStamp.glob("a*c?", "abbbcd") && !SourceStamp.glob("a*c", "abd"))
    }

    /// Editing a source file (or adding one, hidden ones too) changes the stamp; what happens in
    /// the venv or an ignored folder does not.
    @Test func theStampSeesSourcesAndSkipsIgnoredFolders() throws {
        let dir = "/tmp/sourcestamp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        func write(_ rel: String, _ text: String) {
            let fd = open(dir + "/" + rel, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        for d in ["", "/venv", "/venv/lib", "/pkg", "/build"] { mkdir(dir + d, 0o755) }
        defer { _ = try? ChildProcess.start(command: ["rm", "-rf", dir], environment: ["PATH": "/usr/bin:/bin"]).waitUntilExit() }
        write("main.py", "a")
        write("venv/lib/site.py", "x")
        write("pkg/util.py", "u")
        let s0 = SourceStamp.of(dir, ignore: ["build"])
        #expect(s0.contains("main.py:1:") && s0.contains("pkg/util.py:1:") && !s0.contains("venv"))
        write("venv/lib/other.py", "y")
        write("build/out.py", "z")
        #expect(SourceStamp.of(dir, ignore: ["build"]) == s0)
        write("main.py", "ab")
        let s1 = SourceStamp.of(dir, ignore: ["build"])
        #expect(s1 != s0 && s1.contains("main.py:2:"))
        write(".env", "A=1")
        #expect(SourceStamp.of(dir, ignore: ["build"]) != s1)
        #expect(SourceStamp.of(dir + "/missing", ignore: []) == "")
    }
}
