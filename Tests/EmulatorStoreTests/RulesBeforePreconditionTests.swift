import EmulatorCore
import Testing

@testable import EmulatorStore

/// Allows only the listed methods (and records what it was asked).
final class MethodAuthorizer: StoreAuthorizer, @unchecked Sendable {
    let allowed: Set<String>
    var asked: [(String, AccessMethod, Bool)] = []  // (path, method, resource present); test-only, one thread
    init(_ allowed: Set<String>) { self.allowed = allowed }
    func authorize(_ access: StoreAccess) throws {
        asked.append((access.path, access.method, access.resource != nil))
        if !allowed.contains(access.method.rawValue) { throw EmulatorError.permissionDenied("no \(access.method.rawValue)") }
    }
}

/// Rules are judged before preconditions, with the method a write's precondition names, as
/// production (Google's emulator) answers: found by the differential harness's rules kind.
@Suite struct RulesBeforePreconditionTests {
    let user = Caller.user(AuthContext(uid: "u", token: [:]))

    func code(_ s: StoreService, _ writes: [StoreWrite], _ caller: Caller) -> ErrorCode? {
        do {
            _ = try s.commit(project: "p", database: "(default)", writes: writes, caller: caller)
            return nil
        } catch let e as EmulatorError {
            return e.code
        } catch {
            return .internal
        }
    }

    @Test func aCreateOfAStoredDocumentIsJudgedAsACreateFirst() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["v": .integer(1)])
        let create = StoreWrite(path: "c/a", operation: .update([:]), precondition: .exists(false))
        let onlyUpdate = MethodAuthorizer(["update"])
        s.setAuthorizer(onlyUpdate)
        #expect(code(s, [create], user) == .permissionDenied)
        #expect(onlyUpdate.asked.map(\.1) == [.create] && onlyUpdate.asked[0].2)  // resource: the stored document
        s.setAuthorizer(MethodAuthorizer(["create"]))
        #expect(code(s, [create], user) == .alreadyExists)
        #expect(code(s, [create], .admin) == .alreadyExists)
        #expect(try s.getDocument(project: "p", database: "(default)", path: "c/a", caller: .admin).value.fields["v"] == .integer(1))
    }

    @Test func anUpdateOrDeleteOfAMissingDocumentIsJudgedFirst() throws {
        let (s, _) = try makeStore()
        let update = StoreWrite(path: "c/zz", operation: .update(["w": .integer(2)]), updateMask: [FieldPath(["w"])], precondition: .exists(true))
        let delete = StoreWrite(path: "c/zz", operation: .delete, precondition: .exists(true))
        s.setAuthorizer(MethodAuthorizer(["create"]))
        #expect(code(s, [update], user) == .permissionDenied)
        #expect(code(s, [delete], user) == .permissionDenied)
        s.setAuthorizer(MethodAuthorizer(["update", "delete"]))
        #expect(code(s, [update], user) == .notFound)
        #expect(code(s, [delete], user) == .notFound)
        #expect(throws: EmulatorError.self) { try s.getDocument(project: "p", database: "(default)", path: "c/zz", caller: .admin) }
    }

    @Test func aDenialLaterInTheBatchWinsOverAnEarlierPrecondition() throws {
        let (s, _) = try makeStore()
        try set(s, "c/a", ["v": .integer(1)])
        s.setAuthorizer(DenyPath(path: "y/b"))
        let create = StoreWrite(path: "c/a", operation: .update([:]), precondition: .exists(false))
        #expect(code(s, [create, StoreWrite(path: "y/b", operation: .update([:]))], user) == .permissionDenied)
        #expect(code(s, [create, StoreWrite(path: "c/new", operation: .update([:]))], user) == .alreadyExists)
        #expect(throws: EmulatorError.self) { try s.getDocument(project: "p", database: "(default)", path: "c/new", caller: .admin) }
    }
}
