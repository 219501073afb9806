import EmulatorCore
@testable import EmulatorProtobuf
import Testing

struct SmokeTests {
    @Test func registryLinks() {
        #expect(FirestoreSchemas.runQueryRequest.fullName == "google.firestore.v1.RunQueryRequest")
    }
}
