import EmulatorCore
import EmulatorFunctionsWorker

// The MakeItSo backend: run by the emulator as a worker (see ../emulator.json).
let worker = FunctionsWorker()

/// How recent the caller's sign-in must be for a migration.
let recentSignIn: Int64 = 5 * 60

/// Moves every task of an anonymous user to the signed-in permanent user. Takes the anonymous
/// user's ID token, never a user id: a uid could be anyone's, a token proves possession.
worker.callable("migrateTasks") { data, auth, rawToken, ctx in
    guard auth != nil, let rawToken else {
        throw CallableError(.failedPrecondition, "The function must be called while authenticated.")
    }
    guard case .object(let args) = data, let anonymousToken = args["idToken"]?.stringValue, !anonymousToken.isEmpty else {
        throw CallableError(
            .invalidArgument, "The function must be called with {idToken: <ID token of the anonymous user>}; user ids are not accepted.")
    }
    // Re-verify the caller strictly (expiry, revocation; with the example's signed tokens, the
    // signature too, so unsigned or altered tokens are refused).
    let caller = try await ctx.admin.verifyIDToken(rawToken)
    let anonymous: AuthContext
    do { anonymous = try await ctx.admin.verifyIDToken(anonymousToken) } catch let e as CallableError {
        throw CallableError(.unauthenticated, "The anonymous ID token is not valid: \(e.message)")
    }
    guard anonymous.signInProvider == "anonymous" else { throw CallableError(.invalidArgument, "ID token must be anonymous") }
    guard caller.signInProvider != "anonymous" else { throw CallableError(.invalidArgument, "ID token must be non-anonymous") }
    guard let authTime = caller.token["auth_time"]?.intValue, ctx.time.seconds - authTime <= recentSignIn else {
        throw CallableError(.failedPrecondition, "This operation requires a recent sign-in.")
    }
    let query: JSON = [
        "from": [["collectionId": "tasks"]],
        "where": ["fieldFilter": ["field": ["fieldPath": "userId"], "op": "EQUAL", "value": ["stringValue": .string(anonymous.uid)]]],
    ]
    let moved = try await ctx.admin.runTransaction { tx -> (Int, [JSON]) in
        let tasks = try await ctx.admin.runQuery(query, transaction: tx)
        let writes: [JSON] = tasks.compactMap { doc in
            guard let name = doc["name"] else { return nil }
            return [
                "update": ["name": name, "fields": FirestoreJSON.fields(["userId": .string(caller.uid)])],
                "updateMask": ["fieldPaths": ["userId"]], "currentDocument": ["exists": true],
            ]
        }
        return (writes.count, writes)
    }
    // Anonymous accounts never expire on their own: delete it now that its data moved.
    try await ctx.admin.deleteUser(anonymous.uid)
    return ["updatedDocCount": .int(Int64(moved)), "anonymousUserId": .string(anonymous.uid), "permanentUserId": .string(caller.uid)]
}

/// Keeps users/{uid}.taskCount equal to the number of tasks each user owns. Recounting makes the
/// trigger idempotent, so at-least-once delivery and retries are safe.
worker.onDocument("onTaskWritten", "tasks/{taskId}", event: "written", retry: true) { event, ctx in
    var owners = Set<String>()
    for doc in [event.before, event.after] { if let uid = FirestoreJSON.plain(doc, "userId")?.stringValue { owners.insert(uid) } }
    for uid in owners.sorted() {
        let count = try await ctx.admin.runQuery([
            "from": [["collectionId": "tasks"]],
            "where": ["fieldFilter": ["field": ["fieldPath": "userId"], "op": "EQUAL", "value": ["stringValue": .string(uid)]]],
        ]).count
        try await ctx.admin.commit([
            [
                "update": ["name": .string(ctx.admin.name("users/\(uid)")), "fields": FirestoreJSON.fields(["taskCount": .int(Int64(count))])],
                "updateMask": ["fieldPaths": ["taskCount"]],
            ]
        ])
        ctx.log("users/\(uid).taskCount = \(count)")
    }
}

/// Creates the user's profile document.
worker.onUser("onUserCreated", event: "created", retry: true) { event, ctx in
    let user = event.before ?? [:]
    let anonymous = user["email"] == nil && user["phoneNumber"] == nil && (user["providerUserInfo"]?.arrayValue ?? []).isEmpty
    try await ctx.admin.commit([
        [
            "update": [
                "name": .string(ctx.admin.name("users/\(event.subject)")),
                "fields": FirestoreJSON.fields(["createdAt": ["timestampValue": .string(event.time.rfc3339())], "anonymous": .bool(anonymous)]),
            ],
            "updateMask": ["fieldPaths": ["createdAt", "anonymous"]],
        ]
    ])
}

/// Refuses sign-ups from a blocked domain.
worker.blocking("beforeCreate", event: "beforeCreate") { event, _ in
    if let email = event["user"]?["email"]?.stringValue, email.lowercased().hasSuffix("@blocked.example") {
        throw CallableError(.permissionDenied, "Sign-ups from blocked.example are not allowed.")
    }
    return nil
}

try await worker.run()
