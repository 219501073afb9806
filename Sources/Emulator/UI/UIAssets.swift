import CAssets

/// The UI's files, compiled into the binary: plain files in `Sources/Emulator/UI/assets/`
/// (hand-written, no build step), embedded byte for byte by the `CAssets` C target (C23 `#embed`;
/// docs/ui.md says how to add one). Read once, on first use; immutable afterwards.
enum UIAssets {
    /// The app shell (`index.html`), served for `/ui/...` and `/`; not under `/ui/assets/`.
    static let index = embedded["index.html"] ?? UIAsset(contentType: "text/html; charset=utf-8", bytes: [])

    /// What `GET /ui/assets/{name}` serves: every embedded file but the shell.
    static let all: [String: UIAsset] = embedded.filter { $0.key != "index.html" }

    /// Every embedded file by name, its media type from its extension.
    private static let embedded: [String: UIAsset] = {
        var count = 0
        let table = cassets_ui_files(&count)
        var files: [String: UIAsset] = [:]
        for f in UnsafeBufferPointer(start: table, count: count) {
            let name = String(cString: f.name)
            files[name] = UIAsset(
                contentType: UIAsset.contentType(forName: name),
                bytes: Array(UnsafeBufferPointer(start: f.bytes, count: f.count)))
        }
        return files
    }()
}
