#if canImport(XCTest)
import XCTest

/// An XCTest base class giving each test method a project of its own (`project`), removed after
/// the method. Override `makeEmulator()` to use another emulator than the environment's, and
/// `configure(_:)` to prepare the project (rules, seed, clock, data).
///
/// ```swift
/// final class TaskTests: EmulatorTestCase {
///     func testTasksArePrivate() async throws {
///         let alice = try await project.createUser(.anonymous)
///         ...
///     }
/// }
/// ```
///
/// `@unchecked Sendable`: XCTest runs one method of an instance at a time, and the async `setUp`
/// (main-actor isolated on Apple platforms, not on Linux) calls the overridable hooks on `self`.
open class EmulatorTestCase: XCTestCase, @unchecked Sendable {
    /// This test method's project (set in `setUp`, nil after `tearDown`).
    public private(set) var project: EmulatorProject!  // trap-ok: the XCTest convention; setUp sets it before any test method reads it

    /// The emulator projects are made in (default: `FirebaseEmulator.fromEnvironment()`).
    open func makeEmulator() throws -> FirebaseEmulator { try FirebaseEmulator.fromEnvironment() }

    /// Prepares the project before the test method runs (nothing by default).
    open func configure(_ project: EmulatorProject) async throws {}

    /// Creates the project.
    open override func setUp() async throws {
        try await super.setUp()
        let p = try await makeEmulator().createProject(hint: name)
        project = p
        try await configure(p)
    }

    /// Removes the project.
    open override func tearDown() async throws {
        if let p = project {
            project = nil
            try await p.emulator.removeProject(p)
        }
        try await super.tearDown()
    }
}
#endif
