import EmulatorCore

/// Wrong-code counting for SMS and TOTP verification, so a six-digit code cannot be guessed by
/// brute force (production answers `TOO_MANY_ATTEMPTS_TRY_LATER` under its quotas; issue 22).
///
/// Two limits, judged on the project clock (so tests step past them with `clock:advance`):
/// - a verification session (an SMS `sessionInfo`, a TOTP enrolment session, an MFA pending
///   credential) takes `perSession` wrong codes; the next attempt ends it;
/// - a subject (a phone number, a user's TOTP factor) takes `perSubject` wrong codes per
///   `windowSeconds`, across sessions, since starting a new session is free.
///
/// A value type kept in each `AuthPool` (in memory only: counts do not survive a restart).
/// Entries are bounded: expired windows are dropped when the table grows past `maxEntries`.
public struct AttemptLimiter: Sendable, Equatable {
    /// Wrong codes one session accepts before it is closed.
    public static let perSession = 5
    /// Wrong codes per phone number or TOTP factor per window.
    public static let perSubject = 10
    /// The subject window.
    public static let windowSeconds: Int64 = 3600
    /// Entries kept before stale ones are pruned.
    static let maxEntries = 10_000

    struct Window: Sendable, Equatable {
        var failures: Int
        var start: Int64
    }

    private var subjects: [String: Window] = [:]
    private var sessions: [String: Int] = [:]

    /// No attempts yet.
    public init() {}

    /// Counts are bookkeeping, not data: pools holding the same data compare equal whatever was
    /// guessed against them (snapshot and replay comparisons).
    public static func == (lhs: AttemptLimiter, rhs: AttemptLimiter) -> Bool { true }

    /// The refusal for an exhausted session or subject.
    public static let tooMany = EmulatorError.authBadRequest(
        "TOO_MANY_ATTEMPTS_TRY_LATER : Too many wrong verification codes; request a new code later.")

    /// Whether another attempt may be judged: throws `TOO_MANY_ATTEMPTS_TRY_LATER` when `session`
    /// used up its wrong codes (`sessionSpent` true: the caller drops the session) or `subject`
    /// did within its window.
    public func check(subject: String, session: String, now: Int64) throws(EmulatorError) {
        if (sessions[session] ?? 0) >= Self.perSession { throw Self.tooMany }
        if let w = subjects[subject], now - w.start < Self.windowSeconds, w.failures >= Self.perSubject { throw Self.tooMany }
    }

    /// Whether `session` has no wrong codes left.
    public func sessionSpent(_ session: String) -> Bool { (sessions[session] ?? 0) >= Self.perSession }

    /// Records a wrong code.
    public mutating func fail(subject: String, session: String, now: Int64) {
        if subjects.count + sessions.count >= Self.maxEntries { prune(now: now) }
        sessions[session, default: 0] += 1
        if var w = subjects[subject], now - w.start < Self.windowSeconds {
            w.failures += 1
            subjects[subject] = w
        } else {
            subjects[subject] = Window(failures: 1, start: now)
        }
    }

    /// Forgets a session that ended (used or expired).
    public mutating func end(session: String) { sessions[session] = nil }

    private mutating func prune(now: Int64) {
        subjects = subjects.filter { now - $0.value.start < Self.windowSeconds }
        // Sessions live ten minutes at most; a table this full is mostly abandoned ones.
        if subjects.count + sessions.count >= Self.maxEntries { sessions.removeAll() }
    }
}

extension AuthPool {
    /// Judges one code under the attempt limits: throws `TOO_MANY_ATTEMPTS_TRY_LATER` when the
    /// session or subject is spent (calling `endSession` when it is the session), records a
    /// wrong code and throws `INVALID_CODE`, or returns for a right one.
    mutating func checkCode(
        _ correct: Bool, subject: String, session: String, now: Int64,
        endSession: (inout AuthPool) -> Void
    ) throws(EmulatorError) {
        do {
            try attempts.check(subject: subject, session: session, now: now)
        } catch {
            if attempts.sessionSpent(session) {
                endSession(&self)
                attempts.end(session: session)
            }
            throw error
        }
        guard correct else {
            attempts.fail(subject: subject, session: session, now: now)
            throw EmulatorError.authBadRequest("INVALID_CODE")
        }
    }
}
