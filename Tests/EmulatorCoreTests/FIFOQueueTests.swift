import Testing

@testable import EmulatorCore

/// `FIFOQueue` keeps order through appends, pops, front pushes and compaction.
struct FIFOQueueTests {
    @Test func keepsOrderThroughCompactionAndFrontPushes() {
        var q = FIFOQueue<Int>()
        var model: [Int] = []
        var next = 0
        // A deterministic mix: mostly appends early, mostly pops later, a front push now and then.
        for step in 0..<5000 {
            switch step % 7 {
            case 0, 1, 2:
                q.append(next)
                model.append(next)
                next += 1
            case 3:
                q.append(contentsOf: [next, next + 1])
                model.append(contentsOf: [next, next + 1])
                next += 2
            case 4:
                if let x = q.popFirst() {
                    #expect(x == model.removeFirst())
                    if step % 5 == 0 {
                        q.pushFront(x)
                        model.insert(x, at: 0)
                    }
                }
            default:
                #expect(q.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            }
            #expect(q.count == model.count)
        }
        #expect(Array(q) == model)
        while let x = q.popFirst() { #expect(x == model.removeFirst()) }
        #expect(q.isEmpty && model.isEmpty && q.popFirst() == nil)
        q.pushFront(7)
        q.append(8)
        #expect(Array(q) == [7, 8])
        q.removeAll()
        #expect(q.isEmpty)
    }
}
