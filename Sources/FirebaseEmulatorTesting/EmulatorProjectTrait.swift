#if canImport(Testing)
import Testing

/// A Swift Testing trait that gives each test (each case of a parameterized test) a project of
/// its own, reachable in the body as `EmulatorProject.current`, and removes it afterwards.
///
/// ```swift
/// @Test(.emulatorProject) func tasksArePrivate() async throws {
///     let project = try #require(EmulatorProject.current)
///     let alice = try await project.createUser(.anonymous)
///     ...
/// }
/// @Suite(.emulatorProject) struct TaskTests { ... }     // every test of the suite
/// ```
///
/// By default the emulator comes from the environment (`FirebaseEmulator.fromEnvironment()`).
/// `.emulatorProject(shared: "demo-makeitso")` uses an existing project instead, reset before
/// each test and afterwards reset with its clock back on system time and its faults cleared (for
/// what lives in one project only, such as its functions); combine it with `.serialized`.
public struct EmulatorProjectTrait: TestTrait, SuiteTrait, TestScoping {
    /// Where the project comes from.
    public enum Isolation: Sendable {
        /// A new project per test, removed afterwards.
        case fresh
        /// An existing project, reset before and after each test.
        case shared(String)
    }

    /// Fresh or shared.
    public let isolation: Isolation
    /// The emulator to use; nil means the environment's.
    public let emulator: (@Sendable () async throws -> FirebaseEmulator)?
    /// Runs on the project before the test (rules, seed, clock, seeding data).
    public let configure: (@Sendable (EmulatorProject) async throws -> Void)?

    /// Creates the trait; see the static factories.
    public init(
        isolation: Isolation = .fresh, emulator: (@Sendable () async throws -> FirebaseEmulator)? = nil,
        configure: (@Sendable (EmulatorProject) async throws -> Void)? = nil
    ) {
        self.isolation = isolation
        self.emulator = emulator
        self.configure = configure
    }

    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// A scope per test case (not for the suite itself).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> EmulatorProjectTrait? {
        testCase == nil ? nil : self
    }

    /// Creates (or resets) the project, runs the test with `EmulatorProject.current` set, then
    /// removes (or resets) it, even when the test failed.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let emulator = try await self.emulator?() ?? Self.environmentEmulator.get()
        let project: EmulatorProject
        switch isolation {
        case .fresh: project = try await emulator.createProject(hint: test.name)
        case .shared(let id):
            project = emulator.project(id)
            try await project.reset()
        }
        do {
            try await configure?(project)
            try await EmulatorProject.$current.withValue(project) { try await function() }
        } catch {
            try? await cleanUp(project)
            throw error
        }
        try await cleanUp(project)
    }

    private func cleanUp(_ project: EmulatorProject) async throws {
        switch isolation {
        case .fresh: try await project.emulator.removeProject(project)
        case .shared:
            try await project.reset()
            try await project.useSystemClock()  // a reset keeps the clock and faults; the next test must not inherit them
            try await project.clearFaults()
        }
    }

    /// The environment's emulator, made once.
    static let environmentEmulator = Result { () throws(FirebaseEmulatorError) -> FirebaseEmulator in try FirebaseEmulator.fromEnvironment() }
}

extension Trait where Self == EmulatorProjectTrait {
    /// A fresh project per test in the environment's emulator.
    public static var emulatorProject: Self { EmulatorProjectTrait() }

    /// A fresh project per test (or `shared:` an existing one, reset around each test), in
    /// `emulator` (default: the environment's), prepared by `configure`.
    public static func emulatorProject(
        shared: String? = nil, emulator: (@Sendable () async throws -> FirebaseEmulator)? = nil,
        configure: (@Sendable (EmulatorProject) async throws -> Void)? = nil
    ) -> Self {
        EmulatorProjectTrait(isolation: shared.map { .shared($0) } ?? .fresh, emulator: emulator, configure: configure)
    }
}
#endif
