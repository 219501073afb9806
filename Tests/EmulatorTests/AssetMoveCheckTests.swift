import CAssets
import Testing
@testable import Emulator

/// One-off check for the move of the UI's files out of Swift string literals: the embedded files
/// are byte for byte the strings they replace. Deleted with the string literals.
@Suite struct AssetMoveCheckTests {
    @Test func embeddedUIFilesEqualTheStringLiterals() {
        var count = 0
        let table = cassets_ui_files(&count)
        var embedded: [String: [UInt8]] = [:]
        for i in 0..<count {
            let f = table[i]
            embedded[String(cString: f.name)] = Array(UnsafeBufferPointer(start: f.bytes, count: f.count))
        }
        var old = UIAssets.all.mapValues(\.bytes)
        old["index.html"] = UIAssets.index.bytes
        #expect(embedded.keys.sorted() == old.keys.sorted())
        for (name, bytes) in old { #expect(embedded[name] == bytes, "\(name) differs") }
    }
}
