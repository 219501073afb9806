import Testing

@testable import Emulator

/// The byte-wise reading of the usual `Authorization: Bearer <token>` gives what the general
/// reading gives, for the usual form and around it.
@Suite struct BearerTokenTests {
    @Test func theShortcutAgreesWithTheGeneralReading() {
        let values = [
            "Bearer owner", "bearer owner", "BEARER owner ", "Bearer \towner", "Bearer  owner", "Bearer \u{301}owner", "Bearer é",
            "Bearer", "Bearer ", "Bearerx owner", "Basic abc", " Bearer owner", "Bearer a b", "Bearer ya29.x", "Bearer eyJ.a.b",
            "Bearer owner\t", "Bearer x \t", "Bearer owner \u{301}", "Bearer \t\u{301}x", "Bearer\towner", "Bearer x", "Bearer xé",
        ]
        for v in values {
            #expect(CallerResolver.bearer(fromAuthorization: v) == CallerResolver.generalBearer(v), "\(v)")
        }
        #expect(CallerResolver.bearer(fromAuthorization: "Bearer owner") == "owner")
        #expect(CallerResolver.bearer(fromAuthorization: nil) == nil)
    }
}
