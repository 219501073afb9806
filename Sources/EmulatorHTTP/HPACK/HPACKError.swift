/// A header block that cannot be decoded: an HTTP/2 connection error of type COMPRESSION_ERROR
/// (RFC 9113 §4.3), since the two dynamic tables can no longer be trusted to agree.
public struct HPACKError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. "Huffman string has padding longer than 7 bits".
    public var message: String

    /// Creates an error naming the problem.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
