/// Values by file descriptor, a slot per descriptor number: an event loop's open connections.
///
/// The kernel hands out the lowest free descriptor, so the numbers stay close to the count of
/// open files and the slots stay dense. A `Dictionary` hashed the descriptor with SipHash on
/// every lookup, and the loop looks a connection up several times per request (`connections[fd]
/// === c` guards a connection closed meanwhile).
///
/// A value type used by one event loop's thread.
struct DescriptorTable<Value> {
    /// The value of each descriptor number, nil where none is open.
    private var slots: [Value?] = []
    /// Values present.
    private(set) var count = 0

    /// Creates an empty table.
    init() {}

    /// True when the table is empty.
    var isEmpty: Bool { count == 0 }

    /// The value on `fd`, or nil; setting nil removes it.
    subscript(fd: Int32) -> Value? {
        get {
            guard fd >= 0, Int(fd) < slots.count else { return nil }
            return slots[Int(fd)]
        }
        set {
            guard fd >= 0 else { return }
            let i = Int(fd)
            if i >= slots.count {
                guard newValue != nil else { return }
                slots.append(contentsOf: repeatElement(nil, count: max(i + 1, slots.count * 2, 64) - slots.count))
            }
            count += (newValue != nil ? 1 : 0) - (slots[i] != nil ? 1 : 0)
            slots[i] = newValue
            if count == 0 && slots.count > 4096 { slots = [] }  // after a burst, the memory goes back
        }
    }

    /// Every value, in descriptor order.
    var values: [Value] { slots.compactMap { $0 } }
}
