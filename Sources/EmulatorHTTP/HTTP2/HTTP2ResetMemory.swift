/// The most recent stream ids we reset (or refused), up to a fixed count: the peer may have sent
/// frames on them before it saw our RST_STREAM, and those are ignored (RFC 9113 §5.1, "closed"),
/// while HEADERS on any other stream id at or below the highest one the peer opened is a stream id
/// going backwards (§5.1.1, a connection error). A value type owned by one `HTTP2Connection`.
struct HTTP2ResetMemory {
    private let capacity: Int
    private var ids: Set<UInt32> = []
    private var order: [UInt32] = []
    private var head = 0

    /// Creates an empty memory of `capacity` ids.
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Remembers `id`, forgetting the oldest beyond the capacity.
    mutating func insert(_ id: UInt32) {
        guard ids.insert(id).inserted else { return }
        if order.count < capacity {
            order.append(id)
        } else {
            ids.remove(order[head])
            order[head] = id
            head = (head + 1) % capacity
        }
    }

    /// True when `id` was reset recently.
    func contains(_ id: UInt32) -> Bool { ids.contains(id) }
}
