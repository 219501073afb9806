// bench-protobuf: how fast EmulatorProtobuf converts between protobuf bytes and proto3 JSON.
//   swift build -c release --product bench-protobuf && .build/release/bench-protobuf [seconds-per-case [label filter]]
// Prints one Markdown table row per case: messages per second and microseconds per message,
// single-threaded, after a warm-up, best of ten rounds. Measured here, never asserted in a test (see bench/RESULTS.md).
// Then a second table: decoding throughput on hostile shapes of HOSTILE_MIB MiB each (default 4;
// the label filter `hostile` prints only that table).
import EmulatorCore
import EmulatorProtobuf

#if canImport(Glibc)
import Glibc
#endif

let secondsPerCase = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 2.0
/// Only cases whose label contains this text (second argument), for profiling one case.
let only = CommandLine.arguments.dropFirst(2).first
let db = "projects/bench/databases/(default)"
let name = db + "/documents/users/alice"

/// A document of 20 fields of every common kind (what a GetDocument or a Listen change carries).
let document: JSON = [
    "name": .string(name),
    "createTime": "2024-05-01T10:00:00.123456Z",
    "updateTime": "2024-05-02T11:30:00.654321Z",
    "fields": [
        "displayName": ["stringValue": "Alice Example"],
        "email": ["stringValue": "alice@example.com"],
        "age": ["integerValue": "31"],
        "score": ["doubleValue": 1234.5],
        "ratio": ["doubleValue": 0.125],
        "active": ["booleanValue": true],
        "deleted": ["booleanValue": false],
        "nickname": ["nullValue": nil],
        "created": ["timestampValue": "2024-05-01T10:00:00.123456Z"],
        "lastSeen": ["timestampValue": "2024-05-02T11:30:00Z"],
        "avatar": ["bytesValue": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5ErkJggg=="],
        "manager": ["referenceValue": .string(db + "/documents/users/bob")],
        "home": ["geoPointValue": ["latitude": 48.8566, "longitude": 2.3522]],
        "tags": ["arrayValue": ["values": [["stringValue": "admin"], ["stringValue": "beta"], ["stringValue": "eu"]]]],
        "counts": [
            "arrayValue": [
                "values": [["integerValue": "1"], ["integerValue": "2"], ["integerValue": "3"], ["integerValue": "5"], ["integerValue": "8"]]
            ]
        ],
        "address": [
            "mapValue": [
                "fields": [
                    "street": ["stringValue": "1 Rue de Rivoli"], "city": ["stringValue": "Paris"], "zip": ["stringValue": "75001"],
                ]
            ]
        ],
        "prefs": ["mapValue": ["fields": ["theme": ["stringValue": "dark"], "emails": ["booleanValue": false]]]],
        "level": ["integerValue": "-7"],
        "bio": ["stringValue": "Writes Swift, reads protobuf, drinks coffee. Writes Swift, reads protobuf."],
        "version": ["integerValue": "1717171717"],
    ],
]

/// Runs `body` in ten rounds of a tenth of the budget each and reports the best round: on a
/// shared machine the best round is the one least disturbed by other work.
func measure(_ label: String, bytes: Int, _ body: () throws -> Void) rethrows {
    if let only, !label.contains(only) { return }
    for _ in 0..<2_000 { try body() }  // warm-up
    let clock = ContinuousClock()
    let round = Duration.milliseconds(Int64(secondsPerCase * 100))
    var best = 0.0
    for _ in 0..<10 {
        var n = 0
        let start = clock.now
        while clock.now - start < round {
            for _ in 0..<200 { try body() }
            n += 200
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = max(best, Double(n) / seconds)
    }
    print("| \(label) | \(bytes) | \(Int(best).formatted()) | \(twoDecimals(1e6 / best)) |")
}

func twoDecimals(_ x: Double) -> String {
    let hundredths = Int((x * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

extension Int {
    func formatted() -> String {
        let s = String(self)
        var out = ""
        for (i, c) in s.reversed().enumerated() {
            if i > 0 && i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }
}

/// Wire helpers for the hostile shapes.
func varint(_ v: Int) -> [UInt8] {
    var n = UInt64(v), out: [UInt8] = []
    while n >= 0x80 {
        out.append(UInt8(n & 0x7F) | 0x80)
        n >>= 7
    }
    return out + [UInt8(n)]
}
func ld(_ field: Int, _ payload: [UInt8]) -> [UInt8] { varint(field << 3 | 2) + varint(payload.count) + payload }
func entry(_ key: String, _ value: [UInt8]) -> [UInt8] { ld(1, ld(1, Array(key.utf8)) + ld(2, value)) }
/// `unit` repeated to about `size` bytes.
func repeated(_ unit: [UInt8], _ size: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(size + unit.count)
    while out.count < size { out += unit }
    return out
}

/// Decoding throughput on shapes meant to be expensive (a request may carry up to 16 MiB): the
/// work must stay linear, so MB/s should be of the same order for every row. Best of five.
func hostileShapes() throws {
    let size = (getenv("HOSTILE_MIB").flatMap { Int(String(cString: $0)) } ?? 4) << 20
    let value = FirestoreSchemas.value
    guard let structuredQuery = FirestoreSchemas.message(named: "google.firestore.v1.StructuredQuery") else { return }
    var deep: [UInt8] = [0x10, 0x01]
    for _ in 0..<33 { deep = ld(6, entry("a", deep)) + ld(6, []) }
    let cases: [(String, [UInt8], MessageSchema)] = [
        ("map_value repeated at every level, 33 levels, the message over and over", repeated(deep, size), value),
        (
            "one singular message field repeated (Document.create_time{seconds 1})", repeated([0x1A, 0x02, 0x08, 0x01], size),
            FirestoreSchemas.document
        ),
        ("a repeated field's runs interleaved with another field (order_by, offset)", repeated(ld(4, []) + [0x30, 0x01], size), structuredQuery),
        ("tiny map entries (map_value{fields{\"k\": {}}})", ld(6, repeated(entry("k", []), size)), value),
        ("empty nested arrays (array_value{values [{}]})", ld(9, repeated(ld(1, []), size)), value),
        ("oneof switching between two message members", repeated(ld(6, []) + ld(9, []), size), value),
    ]
    print()
    print("Hostile shapes, about \(size >> 20) MiB each, best of five decodes:")
    print()
    print("| shape | bytes | ms | MB/s | steps per byte |")
    print("|---|---:|---:|---:|---:|")
    let clock = ContinuousClock()
    for (label, bytes, schema) in cases {
        var best = Double.infinity
        var steps = 0
        for _ in 0..<5 {
            steps = 0
            let start = clock.now
            _ = try? ProtoJSON.decode(bytes, as: schema, steps: &steps)
            let elapsed = clock.now - start
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        print(
            "| \(label) | \(bytes.count) | \(twoDecimals(best * 1000)) | \(twoDecimals(Double(bytes.count) / best / 1e6)) | \(twoDecimals(Double(steps) / Double(bytes.count))) |"
        )
    }
}

do {
    let docBytes = try ProtoJSON.encode(document, as: FirestoreSchemas.document)
    let getRequest: JSON = ["name": .string(name), "mask": ["fieldPaths": ["displayName", "age"]]]
    let getBytes = try ProtoJSON.encode(getRequest, as: FirestoreSchemas.getDocumentRequest)
    let found: JSON = ["found": document, "readTime": "2024-05-02T11:30:01.000001Z"]
    let foundBytes = try ProtoJSON.encode(found, as: FirestoreSchemas.batchGetDocumentsResponse)
    let commit: JSON = [
        "database": .string(db),
        "writes": [["update": document, "currentDocument": ["exists": true], "updateMask": ["fieldPaths": ["age", "score"]]]],
    ]
    let commitBytes = try ProtoJSON.encode(commit, as: FirestoreSchemas.commitRequest)
    let query: JSON = [
        "parent": .string(db + "/documents"),
        "structuredQuery": [
            "from": [["collectionId": "users"]],
            "where": [
                "compositeFilter": [
                    "op": "AND",
                    "filters": [
                        ["fieldFilter": ["field": ["fieldPath": "age"], "op": "GREATER_THAN", "value": ["integerValue": "18"]]],
                        ["fieldFilter": ["field": ["fieldPath": "active"], "op": "EQUAL", "value": ["booleanValue": true]]],
                    ],
                ]
            ],
            "orderBy": [["field": ["fieldPath": "age"], "direction": "DESCENDING"]],
            "limit": 50,
        ],
    ]
    let queryBytes = try ProtoJSON.encode(query, as: FirestoreSchemas.runQueryRequest)

    print("Single thread, best of ten rounds of \(secondsPerCase / 10) s per case after a warm-up; the document has 20 fields of every common kind.")
    print()
    print("| case | bytes | messages/s | µs/message |")
    print("|---|---:|---:|---:|")
    try measure("decode Document (20 fields)", bytes: docBytes.count) { _ = try ProtoJSON.decode(docBytes, as: FirestoreSchemas.document) }
    try measure("encode Document (20 fields)", bytes: docBytes.count) { _ = try ProtoJSON.encode(document, as: FirestoreSchemas.document) }
    try measure("encode + decode Document (20 fields)", bytes: docBytes.count) {
        _ = try ProtoJSON.decode(try ProtoJSON.encode(document, as: FirestoreSchemas.document), as: FirestoreSchemas.document)
    }
    try measure("decode GetDocumentRequest", bytes: getBytes.count) { _ = try ProtoJSON.decode(getBytes, as: FirestoreSchemas.getDocumentRequest) }
    try measure("encode BatchGetDocumentsResponse (found)", bytes: foundBytes.count) {
        _ = try ProtoJSON.encode(found, as: FirestoreSchemas.batchGetDocumentsResponse)
    }
    try measure("decode CommitRequest (one update)", bytes: commitBytes.count) {
        _ = try ProtoJSON.decode(commitBytes, as: FirestoreSchemas.commitRequest)
    }
    try measure("decode RunQueryRequest", bytes: queryBytes.count) { _ = try ProtoJSON.decode(queryBytes, as: FirestoreSchemas.runQueryRequest) }
    let text = document.serializedBytes()
    try measure("for scale: JSON.parse of the document's REST text", bytes: text.count) { _ = try JSON.parse(text) }
    if only == nil || only == "hostile" { try hostileShapes() }  // "hostile" matches no row above
} catch {
    print("bench-protobuf: \(error)")
    exit(1)
}
