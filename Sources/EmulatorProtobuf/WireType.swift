/// The protobuf wire types (the low three bits of a field key).
public enum WireType: UInt8, Sendable, CaseIterable {
    /// Base-128 varint: int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    case varint = 0
    /// Eight little-endian bytes: fixed64, sfixed64, double.
    case fixed64 = 1
    /// A varint length, then that many bytes: string, bytes, messages, packed repeated scalars.
    case lengthDelimited = 2
    /// Proto2 group start (deprecated; rejected by this codec).
    case startGroup = 3
    /// Proto2 group end (deprecated; rejected by this codec).
    case endGroup = 4
    /// Four little-endian bytes: fixed32, sfixed32, float.
    case fixed32 = 5
}
