import Testing

@testable import EmulatorHTTP

@Suite struct GRPCStatusTests {
    @Test func messagesArePercentEncodedAsGRPCSpecifies() {
        #expect(GRPCStatus.percentEncode("plain text (ok)") == "plain text (ok)")
        #expect(GRPCStatus.percentEncode("100% é\n") == "100%25 %C3%A9%0A")
        #expect(GRPCStatus.percentDecode("100%25 %C3%A9%0A") == "100% é\n")
        #expect(GRPCStatus.percentDecode("bad %zz escape %") == "bad %zz escape %")
    }

    @Test func longMessagesAreCutAtACharacterBoundary() {
        let long = String(repeating: "é", count: 5000)
        let encoded = GRPCStatus.percentEncode(long)
        let decoded = GRPCStatus.percentDecode(encoded)
        #expect(decoded.hasSuffix("…") && decoded.utf8.count <= GRPCStatus.maxMessageBytes + 3)
        #expect(decoded.dropLast().allSatisfy { $0 == "é" })
    }

    @Test func timeoutsParseEveryUnit() throws {
        #expect(try GRPCStatus.parseTimeout(nil) == nil)
        #expect(try GRPCStatus.parseTimeout("5S") == 5_000_000_000)
        #expect(try GRPCStatus.parseTimeout("5010m") == 5_010_000_000)
        #expect(try GRPCStatus.parseTimeout("2H") == 7_200_000_000_000)
        #expect(try GRPCStatus.parseTimeout("3M") == 180_000_000_000)
        #expect(try GRPCStatus.parseTimeout("7u") == 7_000)
        #expect(try GRPCStatus.parseTimeout("99999999n") == 99_999_999)
        #expect(try GRPCStatus.parseTimeout("99999999H") == UInt64.max, "saturates instead of overflowing")
        for bad in ["", "S", "5", "5s", "123456789S", "-1S", "1.5S", "５S"] {
            #expect(throws: GRPCStatus.self, "\(bad)") { try GRPCStatus.parseTimeout(bad) }
        }
    }
}
