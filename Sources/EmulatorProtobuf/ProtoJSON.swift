import EmulatorCore

/// Converts between protobuf wire bytes and the proto3 JSON form, driven by a `MessageSchema`.
///
/// The JSON side is exactly what the REST layer reads and writes (`{"fields": {"a":
/// {"integerValue": "1"}}, "updateTime": "2024-...Z"}`), so one API layer can serve REST and gRPC.
///
/// Decoding (bytes → JSON): fields absent from the bytes are absent from the JSON (no defaults
/// filled in); implicit-presence scalars equal to their default read as absent; oneof members,
/// message fields and wrappers that are present appear even when empty or default
/// (`10 00` → `{"integerValue": "0"}`); unknown fields are skipped; groups, invalid UTF-8 in
/// strings, truncation and nesting deeper than `maxDepth` throw. 64-bit integers become decimal
/// strings, bytes standard base64, enums their value names (unknown numbers stay numbers),
/// non-finite floats the strings `"NaN"`, `"Infinity"`, `"-Infinity"`, and the well-known types
/// their special forms (Timestamp as RFC 3339 like `Document.json`, Duration `"1.5s"`, wrappers
/// their bare value, Struct/Value/ListValue any JSON, NullValue `null`, Any `{"@type": ...}`).
///
/// Encoding (JSON → bytes): JSON names and proto names are both accepted; unknown keys, wrong JSON
/// kinds, out-of-range numbers, two members of one oneof and unknown enum names throw. 64-bit
/// integers may be numbers or strings, bytes standard or URL-safe base64 with or without padding,
/// enums names or numbers. Implicit-presence scalars equal to their default are not written;
/// message fields present in the JSON are written even when empty (`{"targetChange": {}}` →
/// `12 00`); oneof members are written even when default (`{"booleanValue": false}` → `08 00`);
/// repeated scalars are packed; `null` means absent except where it is a value
/// (google.protobuf.Value, NullValue). Fields are written in field-number order and map entries
/// in key order (String order: UTF-8 byte order for NFC text), so the output is deterministic.
public enum ProtoJSON {
    /// The deepest message nesting accepted: this many messages below the outermost one, as
    /// protobuf's parsers count their default recursion limit (upb, C++ and Java all read 100
    /// nested messages and refuse 101); map entries count as a level. Deeper input throws instead
    /// of exhausting the stack, and the encoder has the same limit.
    public static let maxDepth = 100

    /// The key holding the raw bytes (standard base64) of a `google.protobuf.Any` whose type URL
    /// names a message this registry does not know: `{"@type": url, "@value": "base64"}`.
    /// Encoding accepts the same form back.
    public static let anyRawValueKey = "@value"

    /// Decodes `bytes` as a `schema` message into its proto3 JSON form.
    public static func decode(_ bytes: [UInt8], as schema: MessageSchema) throws(ProtobufError) -> JSON {
        try bytes.withUnsafeBufferPointer { (buffer) throws(ProtobufError) -> JSON in
            try decode(buffer, as: schema)
        }
    }

    /// Decodes a slice (for example one gRPC message inside a larger read buffer).
    public static func decode(_ bytes: ArraySlice<UInt8>, as schema: MessageSchema) throws(ProtobufError) -> JSON {
        try bytes.withUnsafeBufferPointer { (buffer) throws(ProtobufError) -> JSON in
            try decode(buffer, as: schema)
        }
    }

    /// Decodes bytes the caller keeps alive for the duration of the call. Work is linear in the
    /// input; a decode running in a task that is cancelled (a gRPC caller that went away) stops
    /// within a few thousand steps with a `ProtobufError`.
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, as schema: MessageSchema) throws(ProtobufError) -> JSON {
        var decoder = ProtoDecoder(buffer: bytes)
        return try decoder.message(schema, 0..<bytes.count, depth: 0)
    }

    /// Decodes like `decode(_:as:)` and adds the work it took to `steps`: one step per field key
    /// read (by any of its passes) and per message entered. Decoding is linear: `steps` grows by
    /// at most `maxSteps(forBytes:)` (what tests and the `protobuf` fuzz target check).
    public static func decode(_ bytes: [UInt8], as schema: MessageSchema, steps: inout Int) throws(ProtobufError) -> JSON {
        try bytes.withUnsafeBufferPointer { (buffer) throws(ProtobufError) -> JSON in
            var decoder = ProtoDecoder(buffer: buffer)
            defer { steps &+= decoder.steps }
            return try decoder.message(schema, 0..<buffer.count, depth: 0)
        }
    }

    /// The most steps decoding `count` bytes may take. Every field takes at least two bytes; its
    /// key is read at most three times (skimming, a run's length, decoding), and a map entry with
    /// a message value enters two messages: at most 2.5 steps per byte. The bound leaves room.
    public static func maxSteps(forBytes count: Int) -> Int { 3 * count + 1 }

    /// Encodes a proto3 JSON value as a `schema` message.
    public static func encode(_ json: JSON, as schema: MessageSchema) throws(ProtobufError) -> [UInt8] {
        let writer = ProtoWriter()
        try encode(json, as: schema, into: writer)
        return writer.bytes()
    }

    /// Encodes into `writer`, in front of whatever it holds (call `reset()` first to reuse one
    /// writer for many messages without reallocating).
    public static func encode(_ json: JSON, as schema: MessageSchema, into writer: ProtoWriter) throws(ProtobufError) {
        try ProtoEncoder(w: writer).message(json, schema, depth: 0)
    }
}
