import Foundation
import Testing

@testable import EmulatorFunctions

/// The Python launcher is the plain file Sources/EmulatorFunctions/Python/launcher/launcher.py,
/// embedded at build time by the CAssets C target: the script the emulator runs is that file.
@Suite struct PythonLauncherScriptTests {
    @Test func theScriptIsTheFileByteForByte() throws {
        var root = URL(fileURLWithPath: #filePath)
        while root.path != "/" && !FileManager.default.fileExists(atPath: root.path + "/Package.swift") { root.deleteLastPathComponent() }
        let disk = try [UInt8](Data(contentsOf: root.appendingPathComponent("Sources/EmulatorFunctions/Python/launcher/launcher.py")))
        let embedded = Array(PythonLauncherScript.source.utf8)
        // A difference means the build did not embed the file's current bytes.
        let same = embedded == disk
        #expect(same, "embedded \(embedded.count) bytes, on disk \(disk.count)")
        #expect(PythonLauncherScript.source.hasPrefix("\"\"\"Process launcher for one Python functions codebase"))
    }
}
