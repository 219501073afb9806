import Emulator
import EmulatorCore
import EmulatorHTTP
import FirebaseEmulatorTesting
import FoundationEssentials

extension EmulatorApp {
    /// One request through the in-process transport, answered as `(status, body)` with the body
    /// in the emulator's own `JSON` (`null` when empty or not JSON). The
    /// request helper this package's route tests share instead of a copy per suite.
    public func call(
        _ method: String, _ target: String, _ body: JSON? = nil,
        headers: HTTPHeaders = ["Content-Type": "application/json"]
    ) async throws -> (Int, JSON) {
        let request = EmulatorRequest(
            method: method, path: target, headers: headers.map { ($0.name, $0.value) },
            body: Data(body?.serializedBytes() ?? []))
        let r = try await InProcessTransport(app: self).send(request)
        if r.body.isEmpty { return (r.status, .null) }
        return (r.status, (try? JSON.parse([UInt8](r.body))) ?? .null)
    }
}

extension JSON {
    /// The testing library's value as the emulator's JSON.
    public init(_ v: JSONValue) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(JSON.init))
        case .object(let o): self = .object(o.mapValues(JSON.init))
        }
    }
}

extension JSONValue {
    /// The emulator's JSON as the testing library's value.
    public init(_ j: JSON) {
        switch j {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(JSONValue.init))
        case .object(let o): self = .object(o.mapValues(JSONValue.init).dictionary)
        }
    }
}
