import Testing
@testable import Emulator

@Suite struct JournalFileTests {
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

    @Test func exportPathsRejectTraversal() {
        #expect(throws: (any Error).self) { try ExportArchive.validate("../x") }
        #expect(throws: (any Error).self) { try ExportArchive.validate("a/../../x") }
        #expect(throws: (any Error).self) { try ExportArchive.validate("") }
        #expect(throws: (any Error).self) { try ExportArchive.validate(nil) }
        #expect((try? ExportArchive.validate("exports/run-1")) == "exports/run-1")
    }
}
