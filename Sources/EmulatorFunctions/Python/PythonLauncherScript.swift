import CAssets

/// The launcher every Python codebase runs in its venv (`python -c <source> launcher`): forks the
/// SDK's admin server and one functions-framework server per function, reports their ports,
/// output and exits as JSON lines, and answers YAML-to-JSON conversions with the venv's PyYAML.
/// The protocol is described in the script's docstring and `LauncherEvent`.
enum PythonLauncherScript {
    /// The script (Python 3.10 or later, as firebase-functions requires): the plain file
    /// `Python/launcher/launcher.py`, embedded byte for byte by the `CAssets` C target (C23 `#embed`).
    /// Decoded once, on first use.
    static let source: String = {
        let file = cassets_python_launcher()
        return String(decoding: UnsafeBufferPointer(start: file.bytes, count: file.count), as: UTF8.self)
    }()
}
