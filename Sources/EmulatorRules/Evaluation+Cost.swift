/// The cost limit on string, list and regular-expression work. Production's documented limits
/// count expressions (1,000 per request), calls and document accesses, not the work inside one
/// call, which RE2 (linear time) and a bounded document (1 MiB) keep small there. Here every
/// call is charged its work, in units of one character (Unicode scalar or UTF-8 byte) read or
/// written, one list element compared or copied, or one step of the regular-expression VM, and a
/// request may spend `maxWork` units: sixteen passes over the largest string a document can hold.
/// Exceeding it is an error value (the condition denies), naming the call.
extension Evaluation {
    /// Units of work one request may spend (2^24; docs/rules.md explains the choice).
    static let maxWork = 16_777_216

    /// Spends `units`; returns the error value to answer with when the budget is exhausted.
    func charge(_ units: Int, _ what: @autoclosure () -> String) -> RulesValue? {
        guard units <= budget else {
            budget = 0
            return overBudget(what())
        }
        budget -= units
        return nil
    }

    /// The error for a call that ran out of budget.
    func overBudget(_ what: String) -> RulesValue {
        budget = 0
        return .error(
            "\(what) exceeds the cost limit of a request: rules may do \(Self.maxWork) units of string, list and regular-expression work per request (a character read or written, a list element compared, or a step of a regular expression each)"
        )
    }

    /// The compiled pattern: from the ruleset when it is a literal there (compiled at load),
    /// else compiled now, charged its compile work, and kept for the rest of the request.
    func regex(_ pattern: String) -> Result<RulesRegex, RulesFailure> {
        if let r = ruleset.regexes[pattern] ?? dynamicRegexes[pattern] { return .success(r) }
        if let e = charge(pattern.utf8.count, "compiling a regular expression of \(pattern.utf8.count) bytes") {
            return .failure(RulesFailure(value: e))
        }
        do {
            let r = try RulesRegex.compile(pattern)
            if let e = charge(r.compileWork, "compiling the regular expression \(RegexError.quote(pattern))") {
                return .failure(RulesFailure(value: e))
            }
            dynamicRegexes[pattern] = r
            return .success(r)
        } catch {
            return .failure(RulesFailure(value: .error(error.message(pattern: pattern))))
        }
    }

    /// The scalars of `s`, for a regular expression to run over (charged one unit each).
    func scalars(_ s: String, _ what: @autoclosure () -> String) -> Result<[Unicode.Scalar], RulesFailure> {
        if let e = charge(s.utf8.count, what()) { return .failure(RulesFailure(value: e)) }
        return .success(Array(s.unicodeScalars))
    }
}

/// An error value to answer with, where a `Result` needs an `Error`.
struct RulesFailure: Error {
    /// The `.error` value.
    var value: RulesValue
}
