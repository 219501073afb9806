/// One HTTP/2 frame (RFC 9113 §4.1): the 9-byte header's fields and the payload.
struct HTTP2Frame: Equatable {
    /// The frame type byte; unknown types are kept so they can be ignored.
    var type: UInt8
    /// The flags byte.
    var flags: UInt8
    /// The stream identifier (the reserved bit cleared).
    var streamId: UInt32
    /// The payload, padding included.
    var payload: [UInt8]

    /// True when `flag` is set.
    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

/// Frame type codes (RFC 9113 §6).
enum HTTP2FrameType {
    static let data: UInt8 = 0x0
    static let headers: UInt8 = 0x1
    static let priority: UInt8 = 0x2
    static let rstStream: UInt8 = 0x3
    static let settings: UInt8 = 0x4
    static let pushPromise: UInt8 = 0x5
    static let ping: UInt8 = 0x6
    static let goaway: UInt8 = 0x7
    static let windowUpdate: UInt8 = 0x8
    static let continuation: UInt8 = 0x9

    /// A readable name for logs and error messages.
    static func name(_ t: UInt8) -> String {
        switch t {
        case data: return "DATA"
        case headers: return "HEADERS"
        case priority: return "PRIORITY"
        case rstStream: return "RST_STREAM"
        case settings: return "SETTINGS"
        case pushPromise: return "PUSH_PROMISE"
        case ping: return "PING"
        case goaway: return "GOAWAY"
        case windowUpdate: return "WINDOW_UPDATE"
        case continuation: return "CONTINUATION"
        default: return "type \(t)"
        }
    }
}

/// Frame flags (RFC 9113 §6); `ack` and `endStream` share a bit on different frame types.
enum HTTP2Flag {
    static let endStream: UInt8 = 0x1
    static let ack: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4
    static let padded: UInt8 = 0x8
    static let priority: UInt8 = 0x20
}

/// SETTINGS identifiers (RFC 9113 §6.5.2).
enum HTTP2Setting {
    static let headerTableSize: UInt16 = 0x1
    static let enablePush: UInt16 = 0x2
    static let maxConcurrentStreams: UInt16 = 0x3
    static let initialWindowSize: UInt16 = 0x4
    static let maxFrameSize: UInt16 = 0x5
    static let maxHeaderListSize: UInt16 = 0x6
}

/// HTTP/2 error codes (RFC 9113 §7), sent in RST_STREAM and GOAWAY.
public enum HTTP2ErrorCode: UInt32, Sendable, CustomStringConvertible {
    case noError = 0x0
    case protocolError = 0x1
    case internalError = 0x2
    case flowControlError = 0x3
    case settingsTimeout = 0x4
    case streamClosed = 0x5
    case frameSizeError = 0x6
    case refusedStream = 0x7
    case cancel = 0x8
    case compressionError = 0x9
    case connectError = 0xa
    case enhanceYourCalm = 0xb
    case inadequateSecurity = 0xc
    case http11Required = 0xd

    /// The RFC name (`PROTOCOL_ERROR`, ...).
    public var description: String {
        switch self {
        case .noError: return "NO_ERROR"
        case .protocolError: return "PROTOCOL_ERROR"
        case .internalError: return "INTERNAL_ERROR"
        case .flowControlError: return "FLOW_CONTROL_ERROR"
        case .settingsTimeout: return "SETTINGS_TIMEOUT"
        case .streamClosed: return "STREAM_CLOSED"
        case .frameSizeError: return "FRAME_SIZE_ERROR"
        case .refusedStream: return "REFUSED_STREAM"
        case .cancel: return "CANCEL"
        case .compressionError: return "COMPRESSION_ERROR"
        case .connectError: return "CONNECT_ERROR"
        case .enhanceYourCalm: return "ENHANCE_YOUR_CALM"
        case .inadequateSecurity: return "INADEQUATE_SECURITY"
        case .http11Required: return "HTTP_1_1_REQUIRED"
        }
    }
}

/// A connection error: the connection ends with GOAWAY carrying `code` and `message`.
struct HTTP2ConnectionError: Error, Equatable, CustomStringConvertible {
    /// The GOAWAY error code.
    var code: HTTP2ErrorCode
    /// What was wrong (sent as GOAWAY debug data).
    var message: String

    init(_ code: HTTP2ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { "\(code): \(message)" }
}

/// Serializes frames.
enum HTTP2FrameWriter {
    /// Appends one frame to `out`.
    static func append(_ out: inout [UInt8], type: UInt8, flags: UInt8, stream: UInt32, payload: some Collection<UInt8>) {
        let n = payload.count
        out.append(UInt8(truncatingIfNeeded: n >> 16))
        out.append(UInt8(truncatingIfNeeded: n >> 8))
        out.append(UInt8(truncatingIfNeeded: n))
        out.append(type)
        out.append(flags)
        appendUInt32(&out, stream & 0x7fff_ffff)
        out.append(contentsOf: payload)
    }

    /// Appends a big-endian 32-bit integer.
    static func appendUInt32(_ out: inout [UInt8], _ v: UInt32) {
        out.append(UInt8(truncatingIfNeeded: v >> 24))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v))
    }

    /// A SETTINGS frame with `values` (or an ACK when `ack`).
    static func settings(_ out: inout [UInt8], _ values: [(UInt16, UInt32)], ack: Bool = false) {
        var p: [UInt8] = []
        for (id, v) in values {
            p.append(UInt8(id >> 8))
            p.append(UInt8(id & 0xff))
            appendUInt32(&p, v)
        }
        append(&out, type: HTTP2FrameType.settings, flags: ack ? HTTP2Flag.ack : 0, stream: 0, payload: p)
    }

    /// A WINDOW_UPDATE frame.
    static func windowUpdate(_ out: inout [UInt8], stream: UInt32, increment: UInt32) {
        var p: [UInt8] = []
        appendUInt32(&p, increment & 0x7fff_ffff)
        append(&out, type: HTTP2FrameType.windowUpdate, flags: 0, stream: stream, payload: p)
    }

    /// An RST_STREAM frame.
    static func rstStream(_ out: inout [UInt8], stream: UInt32, code: HTTP2ErrorCode) {
        var p: [UInt8] = []
        appendUInt32(&p, code.rawValue)
        append(&out, type: HTTP2FrameType.rstStream, flags: 0, stream: stream, payload: p)
    }

    /// A GOAWAY frame with debug data (truncated to keep it small).
    static func goaway(_ out: inout [UInt8], lastStream: UInt32, code: HTTP2ErrorCode, debug: String) {
        var p: [UInt8] = []
        appendUInt32(&p, lastStream & 0x7fff_ffff)
        appendUInt32(&p, code.rawValue)
        p.append(contentsOf: debug.utf8.prefix(1024))
        append(&out, type: HTTP2FrameType.goaway, flags: 0, stream: 0, payload: p)
    }
}
