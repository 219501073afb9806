import Testing

@testable import EmulatorProtobuf

/// The decoder's own UTF-8 check agrees with the standard library's validating initializer.
struct UTF8ValidationTests {
    static func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { UTF8Validation.isValid($0) } }
    static func stdlib(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }

    @Test func edgeCases() {
        let cases: [[UInt8]] = [
            [], [0x41], Array("héllo wörld 🌍 中文".utf8), [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xEF, 0xBF, 0xBF],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
            [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
            [0xC2], [0xE0, 0xA0], [0xF0, 0x90, 0x80], [0xC2, 0x41], [0xE1, 0x80, 0x41], [0xF1, 0x80, 0x80, 0x41],
            Array("12345678".utf8) + [0xC3, 0xA9] + Array("abcdefgh".utf8), Array("1234567".utf8) + [0xFF] + Array("abcdefgh".utf8),
        ]
        for c in cases { #expect(Self.valid(c) == Self.stdlib(c), "\(c)") }
    }

    @Test func randomInputsAgreeWithTheStandardLibrary() async {
        let disagreements = await offThePool { () -> [[UInt8]] in
            var rng = SystemRandomNumberGenerator()
            let interesting: [UInt8] = [
                0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xA0, 0x9F, 0x8F, 0x90,
            ]
            var disagreements: [[UInt8]] = []
            for _ in 0..<20_000 {
                let n = Int.random(in: 0..<24, using: &rng)
                let bytes = (0..<n).map { _ in
                    Bool.random(using: &rng) ? interesting.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
                }
                if UTF8ValidationTests.valid(bytes) != UTF8ValidationTests.stdlib(bytes) { disagreements.append(bytes) }
            }
            return disagreements
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}
