import Testing
@testable import EmulatorAuth

@Test func EmulatorAuthModuleLinks() {
    // Replaced by real tests as the module fills in.
    #expect(Bool(true))
}
