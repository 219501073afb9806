import Testing

@testable import EmulatorHTTP

/// The loop's lookup tables (`StreamTable`, `DescriptorTable`) against a `Dictionary` doing the
/// same operations: the same answers after every step, holes and compaction included.
@Suite struct LoopTablesTests {
    /// Streams opened in ascending order (as HTTP/2 requires), closed in any order, looked up
    /// by ids present, closed and never seen.
    @Test func streamTableAgreesWithADictionary() {
        var rng = SplitMix(seed: 9113)
        var table = StreamTable<Int>()
        var model: [UInt32: Int] = [:]
        var next: UInt32 = 1
        for step in 0..<20_000 {
            switch rng.below(10) {
            case 0...3:
                table[next] = step
                model[next] = step
                next += 2
            case 4...6:
                let id = UInt32(rng.below(Int(next) + 4))
                #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id), "step \(step): remove \(id)")
            case 7:
                // Replacing a value, or setting an older id again (a hole refilled).
                let id = UInt32(rng.below(Int(next)))
                table[id] = -step
                model[id] = -step
            default:
                let id = UInt32(rng.below(Int(next) + 4))
                #expect(table[id] == model[id], "step \(step): get \(id)")
            }
            #expect(table.count == model.count)
        }
        #expect(table.values == model.keys.sorted().map { model[$0]! })
        #expect(table.entries.map(\.id) == model.keys.sorted())
        for id in model.keys { table[id] = nil }
        #expect(table.isEmpty && table.values.isEmpty)
    }

    /// Ten thousand streams closed oldest first (a hostile order for a sorted array) leave an
    /// empty table that still finds a new stream.
    @Test func streamTableClosedOldestFirst() {
        var table = StreamTable<UInt32>()
        for id in stride(from: UInt32(1), to: 20_001, by: 2) { table[id] = id }
        #expect(table.count == 10_000)
        for id in stride(from: UInt32(1), to: 20_001, by: 2) { #expect(table.removeValue(forKey: id) == id) }
        #expect(table.isEmpty)
        table[20_001] = 7
        #expect(table[20_001] == 7 && table[19_999] == nil && table.count == 1)
    }

    /// Descriptors set and cleared in any order, negative ones ignored.
    @Test func descriptorTableAgreesWithADictionary() {
        var rng = SplitMix(seed: 2)
        var table = DescriptorTable<Int>()
        var model: [Int32: Int] = [:]
        for step in 0..<20_000 {
            let fd = Int32(rng.below(300)) - 5
            switch rng.below(3) {
            case 0:
                table[fd] = step
                if fd >= 0 { model[fd] = step }
            case 1:
                table[fd] = nil
                model[fd] = nil
            default:
                #expect(table[fd] == model[fd], "step \(step): get \(fd)")
            }
            #expect(table.count == model.count)
        }
        #expect(table.values == model.keys.sorted().map { model[$0]! })
        #expect(table[Int32.max] == nil && table[-1] == nil)
    }
}
