import EmulatorCore
import Testing

@testable import EmulatorProtobuf

/// Pins every declared message, field and enum to the real descriptors that
/// `Fixtures/dump_descriptors.py` dumped from google-cloud-firestore and google-events
/// (`Fixtures/descriptors.json`; Tests/python/firestore_grpc/test_descriptors_current.py keeps that file
/// current). A wrong number, type, name, cardinality or oneof fails naming the field.
struct ProtobufSchemaTests {
    /// Fields we declare that the published protos lack, with why.
    static let documentedAdditions: [String: String] = [
        "google.firestore.v1.Write.verify": "field 5: sent by the iOS/Android/JS SDKs in transaction commits, not in googleapis' write.proto"
    ]

    /// Descriptor messages we deliberately do not declare (none: every reachable message is).
    static let deliberatelyOmitted: Set<String> = []

    /// Python keywords proto-plus renames with a trailing underscore in its runtime descriptors
    /// (`from` → `from_`); the .proto name is the one without it.
    static func protoName(_ descriptorName: String) -> String {
        descriptorName.hasSuffix("_") ? String(descriptorName.dropLast()) : descriptorName
    }

    @Test func everyMessageAndFieldMatchesTheDescriptors() throws {
        let problems = try Self.compare(FirestoreSchemas.registry, with: Fixtures.load("descriptors"))
        for p in problems { Issue.record(Comment(rawValue: p)) }
        #expect(problems.isEmpty)
    }

    @Test func everyMethodMatchesTheService() throws {
        let descriptors = try Fixtures.load("descriptors")
        let methods = try #require(descriptors["methods"]?.arrayValue)
        let omitted = Set(descriptors["omitted_methods"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        #expect(omitted == Set(FirestoreSchemas.omittedMethods))
        var seen: Set<String> = []
        for m in methods {
            let name = try #require(m["name"]?.stringValue)
            if omitted.contains(name) { continue }
            guard let ours = FirestoreSchemas.method(path: "/google.firestore.v1.Firestore/\(name)") else {
                Issue.record("RPC \(name) is not in FirestoreSchemas.methods")
                continue
            }
            seen.insert(name)
            #expect(ours.request.fullName == m["request"]?.stringValue, "\(name) request")
            #expect(ours.response.fullName == m["response"]?.stringValue, "\(name) response")
            #expect(ours.clientStreaming == m["client_streaming"]?.boolValue, "\(name) client streaming")
            #expect(ours.serverStreaming == m["server_streaming"]?.boolValue, "\(name) server streaming")
        }
        #expect(Set(FirestoreSchemas.methods.map(\.name)) == seen)
    }

    /// The comparison really catches mistakes: a registry with a wrong number, type, cardinality,
    /// JSON name, oneof and enum value reports each one by name.
    @Test func theComparisonCatchesEachKindOfMistake() throws {
        let wrong = try SchemaRegistry(
            messages: [
                MessageSchema(
                    "google.firestore.v1.Cursor",
                    [
                        .repeated(1, "values", .string),  // wrong type
                        .field(3, "before", .bool),  // wrong number
                    ]),
                MessageSchema("google.firestore.v1.DocumentMask", [.field(1, "field_paths", .string)]),  // not repeated
                MessageSchema(
                    "google.firestore.v1.Precondition",
                    [
                        .oneof("other", 1, "exists", .bool),  // wrong oneof
                        .field(2, "update_time", .message("google.protobuf.Timestamp"), jsonName: "updatedTime"),  // not in a oneof, wrong json name
                    ]),
                MessageSchema("google.protobuf.Timestamp", [.field(1, "seconds", .int64), .field(2, "nanos", .int32)]),
                MessageSchema("google.firestore.v1.Invented", []),
            ],
            enums: [EnumSchema("google.firestore.v1.StructuredQuery.Direction", [("DIRECTION_UNSPECIFIED", 0), ("ASCENDING", 1), ("DESCENDING", 3)])]
        )
        let problems = try Self.compare(wrong, with: Fixtures.load("descriptors"), requireComplete: false).joined(separator: "\n")
        for expected in [
            "google.firestore.v1.Cursor.values: type", "google.firestore.v1.Cursor.before: number 3 is not in the descriptor",
            "google.firestore.v1.Cursor: field 2 (before) is not declared", "google.firestore.v1.DocumentMask.field_paths: cardinality",
            "google.firestore.v1.Precondition.exists: oneof", "google.firestore.v1.Precondition.update_time: json name",
            "google.firestore.v1.Precondition.update_time: oneof", "google.firestore.v1.Invented: not in the descriptors",
            "google.firestore.v1.StructuredQuery.Direction: values",
        ] {
            #expect(problems.contains(expected), "missing: \(expected)\nin:\n\(problems)")
        }
    }

    /// Everything that differs between `registry` and the dump, one line each.
    static func compare(_ registry: SchemaRegistry, with descriptors: JSON, requireComplete: Bool = true) throws -> [String] {
        let messages = try #require(descriptors["messages"]?.objectValue)
        let enums = try #require(descriptors["enums"]?.objectValue)
        var problems: [String] = []
        var declared: Set<String> = []
        for schema in registry.allMessages {
            declared.insert(schema.fullName)
            guard let d = messages[schema.fullName] else {
                problems.append("\(schema.fullName): not in the descriptors")
                continue
            }
            let dFields = d["fields"]?.arrayValue ?? []
            var byNumber: [Int: JSON] = [:]
            for f in dFields { if let n = f["number"]?.intValue { byNumber[Int(n)] = f } }
            for field in schema.fields {
                let name = "\(schema.fullName).\(field.name)"
                guard let f = byNumber.removeValue(forKey: field.number) else {
                    if documentedAdditions[name] == nil { problems.append("\(name): number \(field.number) is not in the descriptor") }
                    continue
                }
                problems += compareField(field, f, name: name, messages: messages)
            }
            for (n, f) in byNumber.sorted(by: { $0.key < $1.key }) {
                problems.append("\(schema.fullName): field \(n) (\(f["name"]?.stringValue ?? "?")) is not declared")
            }
        }
        if requireComplete {
            for (name, d) in messages where d["map_entry"]?.boolValue != true && !declared.contains(name) && !deliberatelyOmitted.contains(name) {
                problems.append("\(name): in the descriptors but not declared (declare it or list it in deliberatelyOmitted)")
            }
            for name in documentedAdditions.keys {
                let (message, field) = (String(name[..<name.lastIndex(of: ".")!]), String(name[name.index(after: name.lastIndex(of: ".")!)...]))
                if registry.message(named: message)?.field(named: field) == nil { problems.append("\(name): documented addition is not declared") }
            }
        }
        for e in registry.allEnums {
            guard let d = enums[e.fullName]?.arrayValue else {
                problems.append("\(e.fullName): enum not in the descriptors")
                continue
            }
            let theirs = d.map { "\($0["name"]?.stringValue ?? "?")=\($0["number"]?.intValue ?? -1)" }
            let ours = e.values.map { "\($0.name)=\($0.number)" }
            if theirs != ours { problems.append("\(e.fullName): values \(ours) != descriptor \(theirs)") }
        }
        if requireComplete {
            for name in enums.keys where registry.enumeration(named: name) == nil {
                problems.append("\(name): enum in the descriptors but not declared")
            }
        }
        return problems
    }

    static func compareField(_ field: FieldSchema, _ f: JSON, name: String, messages: UTF8Dictionary<JSON>) -> [String] {
        var problems: [String] = []
        func check(_ what: String, _ ours: String?, _ theirs: String?) {
            if ours != theirs { problems.append("\(name): \(what) \(ours ?? "none") != descriptor \(theirs ?? "none")") }
        }
        check("name", field.name, f["name"]?.stringValue.map(protoName))
        check("json name", field.jsonName, f["json_name"]?.stringValue)
        check("oneof", field.oneof, f["oneof"]?.stringValue)
        check(
            "explicit presence", String(field.hasExplicitPresence && field.oneof == nil && field.type.typeName == nil),
            String(f["proto3_optional"]?.boolValue ?? false))
        let repeated = f["label"]?.stringValue == "repeated"
        let entry = f["type_name"]?.stringValue.flatMap { messages[$0] }
        if let entry, entry["map_entry"]?.boolValue == true {
            guard case .map(let key, let value) = field.cardinality else {
                problems.append("\(name): cardinality \(field.cardinality) != descriptor map")
                return problems
            }
            let entryFields = entry["fields"]?.arrayValue ?? []
            let k = entryFields.first { $0["number"]?.intValue == 1 }, v = entryFields.first { $0["number"]?.intValue == 2 }
            check("map key type", key.descriptorName, k?["type"]?.stringValue)
            check("map value type", value.descriptorName, v?["type"]?.stringValue)
            check("map value type name", value.typeName, v?["type_name"]?.stringValue)
            return problems
        }
        let ours: String
        switch field.cardinality {
        case .singular: ours = "singular"
        case .repeated: ours = "repeated"
        case .map: ours = "map"
        }
        check("cardinality", ours, repeated ? "repeated" : "singular")
        check("type", field.type.descriptorName, f["type"]?.stringValue)
        check("type name", field.type.typeName, f["type_name"]?.stringValue)
        return problems
    }
}
