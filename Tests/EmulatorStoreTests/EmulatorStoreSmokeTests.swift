import Testing
@testable import EmulatorStore

@Test func EmulatorStoreModuleLinks() {
    // Replaced by real tests as the module fills in.
    #expect(Bool(true))
}
