import EmulatorCore
import Testing

@testable import EmulatorRules

/// Where a decision was made (the lines a request log highlights), beside the explanation.
@Suite struct DecidingPointTests {
    static let source = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{db}/documents {
            function owns(d) {
              return request.auth.uid == d.owner;
            }
            match /tasks/{id} {
              allow read: if request.auth != null && owns(resource.data);
              allow write: if request.auth.token.admin == true;
              allow delete;
            }
          }
        }
        """

    static func evaluate(_ method: RulesMethod, auth: AuthContext?, resource: [String: RulesValue]?) throws -> RulesDecision {
        let rs = try CompiledRuleset.compile(source: source).get()
        return rs.evaluate(
            RulesRequest(method: method, path: ["tasks", "t1"], auth: auth, time: Timestamp(seconds: 0), resource: resource), data: EmptyDataSource())
    }

    @Test func denialPointsIntoTheCalledFunction() throws {
        let d = try Self.evaluate(.get, auth: AuthContext(uid: "bob", token: [:]), resource: ["owner": .string("alice")])
        #expect(!d.allowed)
        #expect(
            d.deciding == [
                RulesDecidingPoint(
                    outcome: "deny", statement: SourceLocation(file: "firestore.rules", line: 8, column: 7),
                    location: SourceLocation(file: "firestore.rules", line: 5, column: 14), expression: "request.auth.uid == d.owner")
            ])
    }

    @Test func falseLeftSideOfAndDecides() throws {
        let d = try Self.evaluate(.get, auth: nil, resource: ["owner": .string("alice")])
        #expect(d.deciding.map(\.location.line) == [8] && d.deciding.first?.expression == "request.auth != null")
    }

    @Test func errorsAreMarkedAndEveryTriedStatementIsListed() throws {
        let d = try Self.evaluate(.update, auth: nil, resource: ["owner": .string("alice")])
        #expect(!d.allowed)
        #expect(d.deciding.count == 1 && d.deciding[0].outcome == "error" && d.deciding[0].location.line == 9)
    }

    @Test func grantingStatementIsThePoint() throws {
        let d = try Self.evaluate(.delete, auth: nil, resource: nil)
        #expect(d.allowed)
        #expect(d.deciding.map(\.outcome) == ["allow"] && d.deciding[0].statement.line == 10)
    }
}
