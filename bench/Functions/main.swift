import EmulatorCore
import EmulatorFunctionsWorker

// Callables for bench/bench.py: the cost of a callable round trip, of the host verifying the
// caller's ID token, and of a function re-verifying it strictly through the admin API.
let worker = FunctionsWorker()

/// Answers the caller's uid as the host verified it (nil without a token).
worker.callable("whoami") { _, auth, _, _ in
    ["uid": auth.map { .string($0.uid) } ?? .null]
}

/// Re-verifies the caller's raw ID token strictly (signature, expiry, revocation, disabled) via
/// the emulator's admin API, as a function guarding a sensitive operation does.
worker.callable("verifyCaller") { _, _, rawToken, ctx in
    guard let rawToken else { throw CallableError(.unauthenticated, "The function must be called while authenticated.") }
    let caller = try await ctx.admin.verifyIDToken(rawToken)
    return ["uid": .string(caller.uid)]
}

try await worker.run()
