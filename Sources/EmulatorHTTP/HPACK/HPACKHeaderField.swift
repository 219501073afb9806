/// One header field of an HTTP/2 header block, as HPACK (RFC 7541) carries it.
///
/// Names and values are the field's octets decoded as UTF-8 (invalid sequences become U+FFFD);
/// HTTP/2 header names are lowercase ASCII, and gRPC `-bin` values arrive base64-encoded.
public struct HPACKHeaderField: Sendable, Equatable, CustomStringConvertible {
    /// The field name, e.g. `:path` or `content-type`.
    public var name: String
    /// The field value.
    public var value: String
    /// Whether the field is (or, when encoding, must be) a "never indexed" literal (RFC 7541
    /// §6.2.3): intermediaries must not put it into a dynamic table either. nghttp2 sends
    /// `authorization` this way; encode secrets with it set.
    public var neverIndexed: Bool

    /// Creates a field.
    public init(name: String, value: String, neverIndexed: Bool = false) {
        self.name = name
        self.value = value
        self.neverIndexed = neverIndexed
    }

    /// `name: value`, with ` (never indexed)` when flagged.
    public var description: String { "\(name): \(value)" + (neverIndexed ? " (never indexed)" : "") }
}

/// The result of decoding one header block.
public struct HPACKDecodedBlock: Sendable, Equatable {
    /// The fields in the order they were sent; empty when `listTooLarge`.
    public var fields: [HPACKHeaderField]
    /// The decoded header list was larger than the decoder's `maxHeaderListSize` (RFC 7541 §4.1
    /// sizes: name + value + 32 octets per field). The block was still decoded completely, so the
    /// dynamic table is in step with the peer's encoder, but its fields were dropped: answer the
    /// request with an error (gRPC: RESOURCE_EXHAUSTED / HTTP 431) rather than ending the connection.
    public var listTooLarge: Bool

    /// Creates a result.
    public init(fields: [HPACKHeaderField], listTooLarge: Bool = false) {
        self.fields = fields
        self.listTooLarge = listTooLarge
    }
}
