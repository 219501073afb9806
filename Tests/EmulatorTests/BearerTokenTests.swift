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
            "bEaReR owner", "Bearar owner", "Bearer\u{0}owner", "Bearer owner\u{0}", "Bear\u{0}r owner",
        ]
        for v in values {
            #expect(CallerResolver.bearer(fromAuthorization: v) == CallerResolver.generalBearer(v), "\(v)")
        }
        #expect(CallerResolver.bearer(fromAuthorization: "Bearer owner") == "owner")
        #expect(CallerResolver.bearer(fromAuthorization: nil) == nil)
    }

    /// `owner` in any case is the administrator, as `lowercased() == "owner"` read it.
    @Test func ownerInAnyCase() {
        for t in ["owner", "OWNER", "Owner", "oWnEr", "owners", "own", "ówner", "0wner", "owne\u{212A}", "ownér", "", "owner "] {
            #expect(CallerResolver.isOwner(t) == (t.lowercased() == "owner"), "\(t)")
        }
    }
}
