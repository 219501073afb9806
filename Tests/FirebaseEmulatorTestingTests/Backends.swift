import Emulator
import EmulatorCore
import EmulatorTestSupport
import FirebaseEmulatorTesting
import Foundation

/// The two ways the library reaches an emulator, so every behaviour is checked through both:
/// `live` over HTTP with URLSession (the emulator named by `FIREBASE_EMULATOR_HUB` when the test
/// command runs these tests under `emulator exec`, else one started in this process on port 0),
/// and `inProcess` (the pipeline called directly, no sockets).
enum Backend: String, CaseIterable, CustomStringConvertible, Sendable {
    case live, inProcess

    var description: String { rawValue }

    func emulator() async throws -> FirebaseEmulator {
        switch self {
        case .live: return try await Self.liveEmulator.value
        case .inProcess: return try FirebaseEmulator.inProcess()
        }
    }

    /// One live emulator for the whole test process (started once, never stopped: the process ends).
    static let liveEmulator = Task<FirebaseEmulator, any Error> {
        if FirebaseEmulator.isConfiguredInEnvironment() { return try FirebaseEmulator.fromEnvironment() }
        var config = EmulatorConfig()
        config.singlePort = 0
        let runtime = try await EmulatorRuntime.start(config: config, logger: NullLogSink())
        guard let hub = runtime.address(of: "hub") else { throw FirebaseEmulatorError.unavailable("no hub address") }
        keep.withLock { $0.append(runtime) }
        return try FirebaseEmulator(host: "\(hub.host):\(hub.port)")
    }

    /// Keeps the started runtime alive.
    static let keep = Mutex<[EmulatorRuntime]>([])
}

/// Rules for the tests: tasks readable and writable by their owner only.
let ownerRules = """
    rules_version = '2';
    service cloud.firestore {
      match /databases/{db}/documents {
        match /tasks/{id} {
          allow read, delete: if request.auth != null && resource.data.userId == request.auth.uid;
          allow create, update: if request.auth != null && request.resource.data.userId == request.auth.uid;
        }
      }
    }
    """
