import Testing

@testable import EmulatorCore

#if canImport(Glibc)
import Glibc
#endif

@Suite struct FilePathTextTests {
    @Test(arguments: [
        ("a/b/c.json", "c.json"), ("/tmp/", "tmp"), ("scratch///", "scratch"), ("/", "/"), ("", ""), ("firebase.json", "firebase.json"),
    ])
    func lastComponent(path: String, expected: String) {
        #expect(FilePathText.lastComponent(path) == expected)
    }

    @Test(arguments: [
        ("/a/b", "/a"), ("/a", "/"), ("a", ""), ("a/b/", "a"), ("/", "/"), ("", ""), ("a//b", "a"), ("./firebase.json", "."),
    ])
    func deletingLastComponent(path: String, expected: String) {
        #expect(FilePathText.deletingLastComponent(path) == expected)
    }

    @Test func appending() {
        #expect(FilePathText.appending("a", "b") == "a/b")
        #expect(FilePathText.appending("/", "b") == "/b")
        #expect(FilePathText.appending("", "b") == "b")
        #expect(FilePathText.appending("a/", "b") == "a/b")
    }

    @Test(arguments: [
        ("functions", "/p", "/p/functions"), ("../x", "/a/b", "/a/x"), ("./f/../g//h/", "/a", "/a/g/h"), ("/abs/./p", "/ignored", "/abs/p"),
        ("../../..", "/a", "/"), ("", "/a/b", "/a/b"),
    ])
    func absolute(path: String, directory: String, expected: String) {
        #expect(FilePathText.absolute(path, from: directory) == expected)
    }
}

@Suite struct TrimmingScalarsTests {
    @Test func trimsOnlyTheGivenScalarsAtBothEnds() {
        let spaces: (Unicode.Scalar) -> Bool = { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        #expect(" \t\u{00A0}pad me\u{3000} ".trimmingScalars(where: spaces) == "pad me")
        #expect("\npad\n".trimmingScalars(where: spaces) == "\npad\n")
        #expect("\r\n pad \u{2028}".trimmingScalars { $0.properties.isWhitespace } == "pad")
        #expect("   ".trimmingScalars(where: spaces) == "")
        #expect(" e\u{301} ".trimmingScalars(where: spaces) == "e\u{301}")
    }
}

@Suite struct BackgroundThreadTests {
    @Test func runsTheBodyOnANamedThread() async {
        let name = await withCheckedContinuation { (c: CheckedContinuation<String, Never>) in
            BackgroundThread.detach(name: "a-rather-long-thread-name", stackSize: 1 << 20) {
                var buf = [UInt8](repeating: 0, count: 64)
                let fd = open("/proc/thread-self/comm", O_RDONLY)
                let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                close(fd)
                c.resume(returning: String(decoding: buf[0..<max(0, n)], as: UTF8.self))
            }
        }
        // Linux keeps the first 15 bytes.
        #expect(name == "a-rather-long-t\n")
    }
}
