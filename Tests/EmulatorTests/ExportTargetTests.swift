import EmulatorCore
import Foundation
import Testing

@testable import Emulator

/// Where `:export` and `--export-on-exit` may write: a new folder, an empty one, or a previous
/// export of ours holding nothing else.
@Suite struct ExportTargetTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("export-target-\(UInt64.random(in: 0...UInt64.max))").path
    let participants = ["firestore", "auth"]

    func check(_ path: String) throws -> ExportTarget { try ExportTarget.check(path, participants: participants) }

    func message(_ path: String) -> String {
        do {
            _ = try check(path)
            return "accepted"
        } catch let e as EmulatorError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    @Test func pathsThatNameNoNewFolderAreRefused() {
        for p in ["", "/", "//", ".", "./", "/.", "a/.", "..", "a/../b", "a\u{0}b"] {
            #expect(throws: EmulatorError.self, "\(p)") { _ = try check(p) }
        }
        #expect(message("/").contains("the root folder"))
    }

    @Test func onlyNewEmptyOrOwnFoldersAreReplaced() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: root) }
        #expect(try check(root + "/new/deeper").replaces == false)
        try fm.createDirectory(atPath: root + "/empty", withIntermediateDirectories: true)
        #expect(try check(root + "/empty/").replaces == true)

        fm.createFile(atPath: root + "/file.txt", contents: Data("precious".utf8))
        #expect(message(root + "/file.txt").contains("is not a folder"))
        try fm.createDirectory(atPath: root + "/src", withIntermediateDirectories: true)
        fm.createFile(atPath: root + "/src/main.swift", contents: Data())
        #expect(message(root + "/src").contains("not an export of this emulator (no metadata.json of ours)"))
        try fm.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/empty")
        #expect(message(root + "/link").contains("symbolic link"))

        // A previous export: replaced; with a file added by hand: refused, naming the file.
        let own = root + "/own"
        try fm.createDirectory(atPath: own + "/firestore", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: own + "/auth_export", withIntermediateDirectories: true)
        fm.createFile(atPath: own + "/metadata.json", contents: Data(#"{"version": 1, "participants": ["firestore", "auth"]}"#.utf8))
        fm.createFile(atPath: own + "/firestore/demo-a.json", contents: Data("{}".utf8))
        fm.createFile(atPath: own + "/auth_export/accounts-tenant-1.json", contents: Data("{}".utf8))
        #expect(try check(own).replaces == true)
        fm.createFile(atPath: own + "/firestore/notes.txt", contents: Data())
        #expect(message(own).contains("it holds files an export does not write: firestore/notes.txt"))
        #expect(fm.fileExists(atPath: own + "/firestore/notes.txt"))
    }

    @Test func exportFileNamesComeOnlyFromProjectIds() throws {
        #expect(try ExportArchive.fileName(project: "demo-a") == "demo-a.json")
        for bad in ["victim-proj.json\u{0}x", "a/b", "..", "Demo", "a.b", ""] {
            #expect(throws: EmulatorError.self) { _ = try ExportArchive.fileName(project: bad) }
        }
        #expect(ExportArchive.project(fileName: "demo-a.json") == "demo-a")
        for name in ["Demo.json", "a.b.json", "demo-a.json.bak", ".json", "x"] { #expect(ExportArchive.project(fileName: name) == nil) }
        #expect(throws: EmulatorError.self) { _ = try FirebaseAuthExport.fileName("../t") }
        #expect(try FirebaseAuthExport.fileName("Tenant-1") == "accounts-Tenant-1.json")
    }
}
