import EmulatorCore
import Testing

@testable import Emulator

@Suite struct JournalFileTests {
    static func rec(_ i: Int) -> [UInt8] { JournalFile.record(Array("{\"i\":\(i),\"pad\":\"\(String(repeating: "x", count: i % 7))\"}".utf8)) }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func readsIntactRecordsAndStopsAtATornTail() {
        let a = JournalFile.record(Array("{\"a\":1}".utf8)), b = JournalFile.record(Array("{\"b\":2}".utf8))
        let whole = a + b
        #expect(JournalFile.read(whole).records.count == 2)
        #expect(JournalFile.read(whole).validLength == whole.count)
        let torn = a + Array(b.dropLast(3))
        #expect(JournalFile.read(torn).records.count == 1)
        #expect(JournalFile.read(torn).validLength == a.count)
        var corrupt = whole
        corrupt[a.count + 9] ^= 0xFF
        #expect(JournalFile.read(corrupt).records.count == 1)
    }

    @Test func damageIsATornTailOnlyWhenNothingIntactFollowsIt() throws {
        let records = (0..<10).map(Self.rec)
        let whole = records.flatMap { $0 }
        let offset5 = records.prefix(5).map(\.count).reduce(0, +)
        #expect(JournalFile.scan(whole).damage == nil)

        // A crash mid-append: the last record is cut short.
        let cut = JournalFile.scan(Array(whole.dropLast(4)))
        #expect(cut.records.count == 9 && cut.damage?.isTornTail == true)
        // A power loss can leave the end zero-filled.
        let zeros = JournalFile.scan(whole + [UInt8](repeating: 0, count: 300))
        #expect(zeros.records.count == 10 && zeros.damage?.isTornTail == true && zeros.damage?.reason == "300 zero bytes")
        // The last record complete but damaged: still nothing after it.
        var last = whole
        last[whole.count - 2] ^= 0x01
        #expect(JournalFile.scan(last).damage?.isTornTail == true)

        // One flipped bit in record 6 of 10: corruption in the middle, four intact records after it.
        var middle = whole
        middle[offset5 + 8 + 3] ^= 0x01
        let m = JournalFile.scan(middle)
        #expect(m.records.count == 5 && m.validLength == offset5)
        #expect(m.damage == JournalFile.Damage(offset: offset5, reason: "a record that fails its checksum", intactAfter: 4))
        // A damaged length field, even one promising more bytes than remain, is found the same way.
        var length = whole
        length[offset5 + 3] = 0x7F
        let l = JournalFile.scan(length)
        #expect(l.damage?.offset == offset5 && l.damage?.intactAfter == 4 && l.damage?.isTornTail == false)
    }

    /// The scanner reads untrusted bytes (a damaged file): whatever they are, it returns a prefix
    /// of whole records and never reads out of bounds.
    @Test func scanningDamagedJournalsIsTotal() {
        let rng = IDGenerator(seed: 22)
        for _ in 0..<400 {
            var data = (0..<Int(rng.next() % 12)).flatMap { _ in Self.rec(Int(rng.next() % 40)) }
            for _ in 0..<Int(rng.next() % 4) where !data.isEmpty {
                data[Int(rng.next() % UInt64(data.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            if !data.isEmpty, rng.next() % 3 == 0 { data.removeLast(Int(rng.next() % UInt64(data.count))) }
            let s = JournalFile.scan(data)
            #expect(s.validLength <= data.count)
            #expect(s.records.map { JournalFile.record($0) }.flatMap { $0 } == Array(data.prefix(s.validLength)))
            #expect((s.damage == nil) == (s.validLength == data.count))
        }
    }
}
