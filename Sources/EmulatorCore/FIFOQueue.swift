/// A first-in first-out queue with O(1) amortised `popFirst` and `pushFront`: an array and the
/// index of its head, compacted once the consumed prefix is at least half of it. An array's
/// `removeFirst` moves every element (a queue of 100,000 events cost 5 billion moves to drain).
/// A value type, to be kept wherever its owner keeps state (under the owner's lock).
public struct FIFOQueue<Element>: Sequence {
    private var storage: [Element] = []
    private var head = 0

    /// An empty queue.
    public init() {}

    /// Elements waiting.
    public var count: Int { storage.count - head }
    /// True when nothing waits.
    public var isEmpty: Bool { head == storage.count }

    /// Appends at the back.
    public mutating func append(_ e: Element) { storage.append(e) }

    /// Appends at the back, in order.
    public mutating func append<S: Sequence>(contentsOf s: S) where S.Element == Element { storage.append(contentsOf: s) }

    /// Puts `e` at the front (it is the next `popFirst`).
    public mutating func pushFront(_ e: Element) {
        if head > 0 {
            head -= 1
            storage[head] = e
        } else {
            storage.insert(e, at: 0)
        }
    }

    /// Takes the front element; nil when empty.
    public mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let e = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 1024)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return e
    }

    /// Drops every element.
    public mutating func removeAll() {
        storage.removeAll()
        head = 0
    }

    /// The waiting elements, front first.
    public func makeIterator() -> ArraySlice<Element>.Iterator { storage[head...].makeIterator() }
}

extension FIFOQueue: Sendable where Element: Sendable {}
