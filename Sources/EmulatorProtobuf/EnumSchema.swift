/// An enum type: value names and numbers.
///
/// Immutable after creation; shared freely between threads.
public final class EnumSchema: Sendable {
    /// One enum value.
    public struct Value: Sendable, Hashable {
        /// The value's name (`ASCENDING`).
        public let name: String
        /// Its number.
        public let number: Int32
        /// Declares a value.
        public init(_ name: String, _ number: Int32) {
            self.name = name
            self.number = number
        }
    }

    /// The full name (`google.firestore.v1.StructuredQuery.Direction`).
    public let fullName: String
    /// The values in declaration order.
    public let values: [Value]
    /// True for `google.protobuf.NullValue`, whose JSON form is `null`.
    public let isNullValue: Bool
    private let byNumber: [Int32: String]
    private let byName: [String: Int32]

    /// Declares an enum. `values` pairs names with numbers, as in the .proto.
    public init(_ fullName: String, _ values: [(String, Int32)]) {
        self.fullName = fullName
        self.values = values.map { Value($0.0, $0.1) }
        self.isNullValue = fullName == "google.protobuf.NullValue"
        // First name wins for aliased numbers, as protobuf's JSON printer does.
        self.byNumber = Dictionary(values.map { ($0.1, $0.0) }, uniquingKeysWith: { a, _ in a })
        self.byName = Dictionary(values.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
    }

    /// The name of `number`, nil when the enum has no such value (proto3 enums are open).
    public func name(of number: Int32) -> String? { byNumber[number] }

    /// The number of `name`, nil when unknown.
    public func number(of name: String) -> Int32? { byName[name] }
}
