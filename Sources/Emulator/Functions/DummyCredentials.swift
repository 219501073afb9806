import EmulatorAuth
import EmulatorCore
import EmulatorCrypto
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Service-account files for function processes (`GOOGLE_APPLICATION_CREDENTIALS`), so
/// `initialize_app()` with no arguments and `firestore.client()` start without real credentials.
/// The key is generated here (never a real one) and its token endpoint is the emulator's own
/// `/oauth2.googleapis.com/token`. Files live in a private temporary folder removed at stop.
/// State (the folder and the files made) is behind a `Mutex`.
final class DummyCredentials: Sendable {
    private let state = Mutex<(directory: String?, files: [String: String])>((nil, [:]))
    /// Where each generated key is registered as a custom-token signer (function code may sign
    /// custom tokens with its service account when unsigned tokens are refused).
    private let signers: CustomTokenSigners?

    /// Credentials whose keys `signers` will trust.
    init(signers: CustomTokenSigners? = nil) { self.signers = signers }

    /// The file for `project` (made on first use): `type: service_account`, a fresh RSA key.
    func file(project: String, emulator: String) throws -> String {
        try ResourceId.project(project)  // it names the file
        if let f = state.withLock({ $0.files[project] }) { return f }
        let key = try RSASigningKey.generate()
        let account: JSON = [
            "type": "service_account", "project_id": .string(project), "private_key_id": .string(key.kid),
            "private_key": .string(try key.privateKeyPEM()), "client_email": .string("firebase-adminsdk-emulator@\(project).iam.gserviceaccount.com"),
            "client_id": "100000000000000000000", "auth_uri": .string("http://\(emulator)/o/oauth2/auth"),
            "token_uri": .string("http://\(emulator)/oauth2.googleapis.com/token"),
            "universe_domain": "googleapis.com",
        ]
        signers?.trust(keyId: key.kid, email: account["client_email"]?.stringValue, key: key)
        return try state.withLock { s in
            if let f = s.files[project] { return f }
            if s.directory == nil {
                let tmp = FileManager.default.temporaryDirectory.path
                var template = Array(FilePathText.appending(tmp, "emulator-credentials-XXXXXX").utf8CString)
                guard let made = mkdtemp(&template) else { throw CLIError("cannot create a folder for dummy credentials in \(tmp)") }
                s.directory = String(cString: made)
            }
            guard let directory = s.directory else { throw CLIError("cannot create a folder for dummy credentials") }
            let path = directory + "/\(project).json"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw CLIError("cannot write \(path)") }
            let bytes = account.serializedBytes(pretty: true)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            s.files[project] = path
            return path
        }
    }

    /// Removes the files and their folder.
    func remove() {
        let dir = state.withLock { s -> String? in
            defer { s = (nil, [:]) }
            return s.directory
        }
        if let dir { try? FileManager.default.removeItem(atPath: dir) }
    }
}
