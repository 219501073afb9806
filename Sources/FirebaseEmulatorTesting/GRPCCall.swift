import Foundation

/// The answer to a gRPC call: the response messages (protobuf bytes) and the status.
public struct GRPCReply: Sendable {
    /// Response messages in order.
    public var messages: [Data]
    /// `grpc-status` (0 is OK).
    public var status: Int
    /// `grpc-message`, percent-decoded.
    public var message: String
}

extension FirebaseEmulator {
    /// Calls a gRPC method (`/google.firestore.v1.Firestore/Commit`) with request messages already
    /// encoded as protobuf, and `metadata` such as `authorization`. Needs a transport that speaks
    /// gRPC (the in-process one does; URLSession cannot). A non-OK status is returned, not thrown.
    public func grpc(_ method: String, _ messages: [Data], metadata: [(String, String)] = []) async throws(FirebaseEmulatorError) -> GRPCReply {
        let request = EmulatorRequest(
            method: "POST", path: method,
            headers: [("content-type", "application/grpc"), ("te", "trailers")] + metadata,
            body: GRPCFraming.frame(messages))
        let r = try await send(request)
        guard let statusText = r.header("grpc-status"), let status = Int(statusText) else {
            throw .decoding("gRPC answer without grpc-status (HTTP \(r.status))")
        }
        let message = (r.header("grpc-message") ?? "").removingPercentEncoding ?? ""
        return GRPCReply(messages: try GRPCFraming.unframe(r.body), status: status, message: message)
    }
}

/// gRPC's length-prefixed message framing (a flag byte, a 4-byte big-endian length, the bytes).
public enum GRPCFraming {
    /// Frames uncompressed messages one after another.
    public static func frame(_ messages: [Data]) -> Data {
        var out = Data()
        for m in messages {
            let n = UInt32(clamping: m.count)
            out.append(contentsOf: [
                0, UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16),
                UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n),
            ])
            out.append(m)
        }
        return out
    }

    /// Splits a body into its messages; throws `.decoding` for a truncated or compressed one.
    public static func unframe(_ body: Data) throws(FirebaseEmulatorError) -> [Data] {
        let bytes = [UInt8](body)
        var out: [Data] = []
        var i = 0
        while i < bytes.count {
            guard i + 5 <= bytes.count else { throw .decoding("a gRPC message header is cut short") }
            guard bytes[i] == 0 else { throw .decoding("compressed gRPC messages are not supported") }
            let n = Int(bytes[i + 1]) << 24 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 8 | Int(bytes[i + 4])
            guard i + 5 + n <= bytes.count else { throw .decoding("a gRPC message is cut short") }
            out.append(Data(bytes[(i + 5)..<(i + 5 + n)]))
            i += 5 + n
        }
        return out
    }
}
