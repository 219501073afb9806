import EmulatorCore
import Foundation
import Testing

@testable import EmulatorRules

/// Loads a conformance file kept beside the tests.
func conformanceFile(_ name: String) throws -> JSON {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Conformance"))
    return try JSON.parse(Array(try Data(contentsOf: url)))
}

/// Converts expected JSON into a rules value (ints stay ints, doubles floats).
func rulesValue(_ j: JSON) -> RulesValue { RulesValue(json: j) }

/// A data source over a dictionary of `collection/doc` → fields.
struct DictionarySource: RulesDataSource {
    let docs: [String: [String: RulesValue]]
    func get(_ path: [String]) -> [String: RulesValue]? { docs[path.joined(separator: "/")] }
    func getAfter(_ path: [String]) -> [String: RulesValue]? { get(path) }
}

@Suite struct ConformanceTests {
    @Test func expressionCases() throws {
        let cases = try #require(try conformanceFile("expressions").arrayValue)
        #expect(cases.count > 50)
        for c in cases {
            let text = try #require(c["expr"]?.stringValue)
            let result = Evaluation.evaluateExpression(text, vars: ["db": .string("d"), "uid": .string("u1")])
            switch result {
            case .failure(let d): Issue.record("\(text): did not parse: \(d)")
            case .success(let v):
                if let fragment = c["error"]?.stringValue {
                    guard case .error(let m) = v else {
                        Issue.record("\(text): expected error containing '\(fragment)', got \(v.display)")
                        continue
                    }
                    #expect(m.contains(fragment), "\(text): error '\(m)' lacks '\(fragment)'")
                } else if let expected = c["value"] {
                    #expect(
                        RulesValue.equal(v, rulesValue(expected)) && v.typeName == rulesValue(expected).typeName
                            || (v.typeName == "float" && expected.doubleValue != nil && RulesValue.equal(v, rulesValue(expected))),
                        "\(text): expected \(rulesValue(expected).display), got \(v.display)")
                }
            }
        }
    }

    @Test func rulesetCases() throws {
        let suites = try #require(try conformanceFile("rulesets").arrayValue)
        for s in suites {
            let source = try #require(s["rules"]?.stringValue)
            let rs: CompiledRuleset
            switch CompiledRuleset.compile(source: source) {
            case .success(let r): rs = r
            case .failure(let e):
                Issue.record("\(s["name"] ?? ""): \(e)")
                continue
            }
            for c in s["cases"]?.arrayValue ?? [] {
                let name = c["name"]?.stringValue ?? "?"
                let method = try #require(RulesMethod(rawValue: c["method"]?.stringValue ?? ""))
                var claims: UTF8Dictionary<JSON> = c["claims"]?.objectValue ?? [:]
                let auth = c["uid"]?.stringValue.map { uid -> AuthContext in
                    claims["sub"] = .string(uid)
                    return AuthContext(uid: uid, token: claims)
                }
                var req = RulesRequest(
                    method: method, path: (c["path"]?.stringValue ?? "").split(separator: "/").map(String.init), auth: auth,
                    time: Timestamp(seconds: 1_800_000_000),
                    resource: c["resource"]?.objectValue?.dictionary.mapValues(rulesValue),
                    requestResource: c["requestResource"]?.objectValue?.dictionary.mapValues(rulesValue))
                if let q = c["query"]?.arrayValue {
                    let disjuncts = q.map { d in
                        (d.objectValue?.dictionary ?? [:]).mapValues { v -> QueryConstraint in
                            if case .object(let r) = v {
                                let lo = r[">"].map { (rulesValue($0), false) } ?? r[">="].map { (rulesValue($0), true) }
                                let hi = r["<"].map { (rulesValue($0), false) } ?? r["<="].map { (rulesValue($0), true) }
                                return .range(lower: lo, upper: hi)
                            }
                            return .equal(rulesValue(v))
                        }
                    }
                    req.query = RulesQuery(
                        limit: c["limit"]?.intValue.map(Int.init), offset: nil, orderBy: [], disjuncts: disjuncts,
                        collectionGroup: c["group"]?.boolValue ?? false)
                }
                let data = DictionarySource(
                    docs: (c["data"]?.objectValue?.dictionary ?? [:]).mapValues { ($0.objectValue?.dictionary ?? [:]).mapValues(rulesValue) })
                let d = rs.evaluate(req, data: data)
                #expect(d.allowed == c["allow"]?.boolValue, "\(s["name"]!) / \(name): \(d.explanation)")
                if let fragment = c["explains"]?.stringValue {
                    #expect(d.explanation.contains(fragment), "\(name): explanation lacks '\(fragment)':\n\(d.explanation)")
                }
            }
        }
    }
}
