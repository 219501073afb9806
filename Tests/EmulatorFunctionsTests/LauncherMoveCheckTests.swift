import CAssets
import Testing
@testable import EmulatorFunctions

/// One-off check for the move of the Python launcher out of Swift string literals: the embedded
/// launcher.py is byte for byte the assembled script. Deleted with the string literals.
@Suite struct LauncherMoveCheckTests {
    @Test func embeddedLauncherEqualsTheAssembledScript() {
        let f = cassets_python_launcher()
        let embedded = Array(UnsafeBufferPointer(start: f.bytes, count: f.count))
        #expect(embedded == Array(PythonLauncherScript.source.utf8))
        #expect(String(cString: f.name) == "launcher.py")
    }
}
