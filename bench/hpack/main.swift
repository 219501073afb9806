// HPACK micro-benchmark: compiled together with Sources/EmulatorHTTP/HPACK by bench/hpack/run.sh
// (swiftc -O, one module, no package build). Prints one line per measure; asserts nothing.

/// Runs `body` `repeats` times and returns the fastest run's duration in seconds (the least
/// disturbed by other work on the machine).
func fastest(_ repeats: Int, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<repeats {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        best = min(best, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
    return best
}

/// A grpc-core-like Firestore request (what the Python, PHP and C++ clients send).
func grpcCoreRequest(_ n: Int) -> [HPACKHeaderField] {
    let methods = ["Commit", "BatchGetDocuments", "RunQuery", "Listen", "Write"]
    return [
        HPACKHeaderField(name: ":scheme", value: "http"),
        HPACKHeaderField(name: ":method", value: "POST"),
        HPACKHeaderField(name: ":authority", value: "127.0.0.1:8080"),
        HPACKHeaderField(name: ":path", value: "/google.firestore.v1.Firestore/" + methods[n % methods.count]),
        HPACKHeaderField(name: "authorization", value: "Bearer owner", neverIndexed: true),
        HPACKHeaderField(name: "x-goog-request-params", value: "database=projects%2Fdemo-project%2Fdatabases%2F%28default%29"),
        HPACKHeaderField(name: "google-cloud-resource-prefix", value: "projects/demo-project/databases/(default)"),
        HPACKHeaderField(name: "x-goog-api-client", value: "gl-python/3.11.7 grpc/1.66.0 gax/2.19.2 gccl/2.18.0"),
        HPACKHeaderField(name: "grpc-timeout", value: "\(59_000 + n % 1000)m"),
        HPACKHeaderField(name: "te", value: "trailers"),
        HPACKHeaderField(name: "content-type", value: "application/grpc"),
        HPACKHeaderField(name: "user-agent", value: "grpc-python/1.66.0 grpc-c/43.0.0 (linux; chttp2)"),
        HPACKHeaderField(name: "grpc-accept-encoding", value: "identity, deflate, gzip"),
    ]
}

let count = 100_000
var encoder = HPACKEncoder()
let blocks = (0..<count).map { encoder.encode(grpcCoreRequest($0)) }
let octets = blocks.reduce(0) { $0 + $1.count }
var fieldsSeen = 0

let steady = try fastest(5) {
    var decoder = HPACKDecoder()
    for block in blocks { fieldsSeen &+= try decoder.decode(block).fields.count }
}
print(
    "decode \(count) grpc-core-like request blocks (13 fields, \(octets / count) octets each after the first, dynamic table): "
        + "\(Int(steady * 1000)) ms, \(Int(steady / Double(count) * 1e9)) ns/block")

// The first request of a connection: every field a literal (raw strings), new names included.
var coldEncoder = HPACKEncoder(tableSize: 4096, huffman: .never)
let first = coldEncoder.encode(grpcCoreRequest(0))
let cold = try fastest(5) {
    for _ in 0..<count {
        var decoder = HPACKDecoder()
        fieldsSeen &+= try decoder.decode(first).fields.count
    }
}
print(
    "decode \(count) first-request blocks (\(first.count) octets, all literals, fresh decoder each): "
        + "\(Int(cold * 1000)) ms, \(Int(cold / Double(count) * 1e9)) ns/block")

// The same first request with every string Huffman-coded (nghttp2 and okhttp style).
var huffmanEncoder = HPACKEncoder(tableSize: 4096, huffman: .always)
let huffmanFirst = huffmanEncoder.encode(grpcCoreRequest(0))
let huff = try fastest(5) {
    for _ in 0..<count {
        var decoder = HPACKDecoder()
        fieldsSeen &+= try decoder.decode(huffmanFirst).fields.count
    }
}
print(
    "decode \(count) Huffman first-request blocks (\(huffmanFirst.count) octets): "
        + "\(Int(huff * 1000)) ms, \(Int(huff / Double(count) * 1e9)) ns/block, "
        + "\(Int(Double(huffmanFirst.count * count) / huff / 1e6)) MB/s")

// Our side: response headers and trailers of a unary call.
let headers = [
    HPACKHeaderField(name: ":status", value: "200"), HPACKHeaderField(name: "content-type", value: "application/grpc"),
    HPACKHeaderField(name: "grpc-accept-encoding", value: "identity,deflate,gzip"),
]
var encoded = 0
let enc = fastest(5) {
    var e = HPACKEncoder()
    for n in 0..<count {
        encoded &+= e.encode(headers).count
        encoded &+=
            e.encode([
                HPACKHeaderField(name: "grpc-status", value: n % 7 == 0 ? "5" : "0"),
                HPACKHeaderField(name: "grpc-message", value: n % 7 == 0 ? "no entity \(n)" : ""),
            ]).count
    }
}
print("encode \(count) response header + trailer block pairs: \(Int(enc * 1000)) ms, \(Int(enc / Double(count) * 1e9)) ns/pair")
print("(checksum \(fieldsSeen &+ encoded))")
