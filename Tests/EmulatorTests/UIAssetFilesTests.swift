import Foundation
import Testing

@testable import Emulator

/// The UI's files are plain files in Sources/Emulator/UI/assets/, embedded at build time by the
/// CAssets C target: what the emulator serves is exactly what is on disk, and nothing in the
/// folder is left out of the binary.
@Suite struct UIAssetFilesTests {
    static let folder = packageRoot() + "/Sources/Emulator/UI/assets"

    @Test func everyFileOfTheFolderIsEmbeddedByteForByte() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { !$0.hasPrefix(".") }.sorted()
        // A file here that the CAssets table lacks would not be served (add it to Sources/CAssets/ui_assets.c).
        #expect(names == (Array(UIAssets.all.keys) + ["index.html"]).sorted())
        for name in names {
            let disk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + name)))
            let served = name == "index.html" ? UIAssets.index.bytes : UIAssets.all[name]?.bytes
            // A difference means the build did not embed the file's current bytes.
            let same = served == disk
            #expect(same, "\(name): embedded \(served?.count ?? -1) bytes, on disk \(disk.count)")
        }
    }

    @Test func everyFileHasItsMediaType() {
        #expect(UIAssets.index.contentType == "text/html; charset=utf-8")
        #expect(UIAssets.all["core.js"]?.contentType == "text/javascript; charset=utf-8")
        #expect(UIAssets.all["app.css"]?.contentType == "text/css; charset=utf-8")
        #expect(UIAssets.all["favicon.svg"]?.contentType == "image/svg+xml")
        for (name, asset) in UIAssets.all { #expect(asset.contentType != "application/octet-stream", "\(name) has no known media type") }
        #expect(UIAsset.contentType(forName: "README") == "application/octet-stream")
    }
}
