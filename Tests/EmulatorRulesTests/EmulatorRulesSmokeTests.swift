import Testing
@testable import EmulatorRules

@Test func EmulatorRulesModuleLinks() {
    // Replaced by real tests as the module fills in.
    #expect(Bool(true))
}
