/// One kind of unused code in a pool (OOB codes by code, SMS codes by session), with the keys in
/// issue order, at most a given number: past it the oldest goes. OOB and SMS codes once kept this
/// bookkeeping in two copies written two ways; both use this one.
///
/// A value inside `AuthPool`, so it lives under `AuthService`'s `Mutex` like the rest of the pool.
struct IssuedCodes<Code: Sendable & Equatable>: Sendable, Equatable {
    /// Codes by key.
    private(set) var byKey: [String: Code] = [:]
    /// Keys in the order they were issued (listings and exports keep it).
    private(set) var order: [String] = []

    /// Stores or (with nil) drops the code under `key`: a new key goes last in the issue order, a
    /// replaced one keeps its place. Past `limit` codes the oldest is dropped as well. Every key
    /// changed is noted in `changes`, with what it held before, for the journal and `rollBack`.
    mutating func set(_ key: String, _ code: Code?, limit: Int, noting changes: inout CodeChanges<Code>) {
        changes.note(key, prior: byKey[key], order: order)
        guard let code else {
            if byKey.removeValue(forKey: key) != nil { order.removeAll { $0 == key } }
            return
        }
        guard byKey.updateValue(code, forKey: key) == nil else { return }
        order.append(key)
        guard order.count > limit else { return }
        let oldest = order.removeFirst()
        changes.note(oldest, prior: byKey.removeValue(forKey: oldest), order: order)
    }

    /// Puts back what `changes` recorded (a write the journal refused).
    mutating func undo(_ changes: CodeChanges<Code>) {
        for (k, p) in changes.prior { byKey[k] = p.value }
        if let o = changes.priorOrder { order = o }
    }
}

/// What the writes since the journal last looked did to one kind of code: the keys touched, what
/// each held at first touch, and the issue order before the first change. Part of `AuthChangeSet`.
struct CodeChanges<Code: Sendable>: Sendable {
    /// Keys touched.
    private(set) var touched: Set<String> = []
    /// First-touch values of the touched keys (`nil` inside: the key was absent).
    private(set) var prior: [String: Prior<Code>] = [:]
    /// The issue order before the first change.
    private(set) var priorOrder: [String]?

    /// Nothing touched.
    var isEmpty: Bool { touched.isEmpty }

    /// Whether `key` was touched.
    func contains(_ key: String) -> Bool { touched.contains(key) }

    /// Records that `key` is about to change from `value`, with the issue order then being
    /// `order`; only the first record of each counts.
    mutating func note(_ key: String, prior value: Code?, order: [String]) {
        touched.insert(key)
        if prior[key] == nil { prior[key] = Prior(value) }
        if priorOrder == nil { priorOrder = order }
    }
}
