/// google/protobuf/{timestamp,duration,empty,any,struct,wrappers}.proto: the well-known types the
/// Firestore protos use. Their JSON forms are special (see `ProtoJSON`); the tables still give
/// their wire layout.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func wellKnownTypes() -> ProtoFile {
        ProtoFile(
            path: "google/protobuf/*.proto",
            messages: [
                MessageSchema(
                    "google.protobuf.Timestamp",
                    [
                        .field(1, "seconds", .int64),
                        .field(2, "nanos", .int32),
                    ]),
                MessageSchema(
                    "google.protobuf.Duration",
                    [
                        .field(1, "seconds", .int64),
                        .field(2, "nanos", .int32),
                    ]),
                MessageSchema("google.protobuf.Empty", []),
                MessageSchema(
                    "google.protobuf.Any",
                    [
                        .field(1, "type_url", .string),
                        .field(2, "value", .bytes),
                    ]),
                MessageSchema(
                    "google.protobuf.Struct",
                    [
                        .map(1, "fields", .string, T.protobufValue)
                    ]),
                MessageSchema(
                    "google.protobuf.Value",
                    [
                        .oneof("kind", 1, "null_value", T.nullValue),
                        .oneof("kind", 2, "number_value", .double),
                        .oneof("kind", 3, "string_value", .string),
                        .oneof("kind", 4, "bool_value", .bool),
                        .oneof("kind", 5, "struct_value", T.struct),
                        .oneof("kind", 6, "list_value", T.listValue),
                    ]),
                MessageSchema(
                    "google.protobuf.ListValue",
                    [
                        .repeated(1, "values", T.protobufValue)
                    ]),
                MessageSchema("google.protobuf.DoubleValue", [.field(1, "value", .double)]),
                MessageSchema("google.protobuf.FloatValue", [.field(1, "value", .float)]),
                MessageSchema("google.protobuf.Int64Value", [.field(1, "value", .int64)]),
                MessageSchema("google.protobuf.UInt64Value", [.field(1, "value", .uint64)]),
                MessageSchema("google.protobuf.Int32Value", [.field(1, "value", .int32)]),
                MessageSchema("google.protobuf.UInt32Value", [.field(1, "value", .uint32)]),
                MessageSchema("google.protobuf.BoolValue", [.field(1, "value", .bool)]),
                MessageSchema("google.protobuf.StringValue", [.field(1, "value", .string)]),
                MessageSchema("google.protobuf.BytesValue", [.field(1, "value", .bytes)]),
            ],
            enums: [
                EnumSchema("google.protobuf.NullValue", [("NULL_VALUE", 0)])
            ]
        )
    }
}
