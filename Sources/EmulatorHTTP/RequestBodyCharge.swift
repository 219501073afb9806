/// One body's share of a `RequestBodyBudget`: set to the bytes the body holds (or has announced)
/// as it grows, and given back when it is done with. A body of at most
/// `RequestBodyBudget.freeBytes` costs nothing. Owned by one body's reader (a connection on its
/// event loop, an HTTP/2 handler, a gRPC call behind its receive lock), never shared.
struct RequestBodyCharge {
    /// The budget charged.
    let budget: RequestBodyBudget
    /// Bytes taken from the budget now.
    private(set) var bytes = 0

    /// Creates a charge of nothing against `budget`.
    init(budget: RequestBodyBudget) { self.budget = budget }

    /// Makes the charge `total` bytes (0 when that is small enough to ride free), taking more from
    /// the budget or giving some back. False, with nothing changed, when the budget has no room:
    /// the caller refuses the body.
    mutating func cover(_ total: Int) -> Bool {
        let wanted = total > RequestBodyBudget.freeBytes ? total : 0
        if wanted > bytes {
            guard budget.reserve(wanted - bytes) else { return false }
        } else if wanted < bytes {
            budget.release(bytes - wanted)
        }
        bytes = wanted
        return true
    }

    /// Gives everything back (the body is answered, abandoned or its connection closed).
    mutating func release() {
        budget.release(bytes)
        bytes = 0
    }
}
