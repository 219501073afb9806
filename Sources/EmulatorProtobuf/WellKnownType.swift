/// The google.protobuf types whose proto3 JSON form is not a plain object of their fields.
enum WellKnownType: Sendable {
    /// RFC 3339 string.
    case timestamp
    /// `"1.5s"`.
    case duration
    /// The wrapped value itself (`Int32Value` → `5`, `Int64Value` → `"5"`, ...).
    case wrapper
    /// Any JSON object.
    case structType
    /// Any JSON value.
    case value
    /// Any JSON array.
    case listValue
    /// `{"@type": url, ...}`.
    case any

    /// The mapping for a full name, nil for ordinary messages.
    init?(fullName: String) {
        guard fullName.hasPrefix("google.protobuf.") else { return nil }
        switch fullName.dropFirst("google.protobuf.".count) {
        case "Timestamp": self = .timestamp
        case "Duration": self = .duration
        case "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value",
            "BoolValue", "StringValue", "BytesValue":
            self = .wrapper
        case "Struct": self = .structType
        case "Value": self = .value
        case "ListValue": self = .listValue
        case "Any": self = .any
        default: return nil
        }
    }
}
