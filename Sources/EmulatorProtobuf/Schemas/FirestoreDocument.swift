/// google/firestore/v1/document.proto: documents and values.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreDocument() -> ProtoFile {
        ProtoFile(
            path: "google/firestore/v1/document.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.Document",
                    [
                        .field(1, "name", .string),
                        .map(2, "fields", .string, T.v1("Value")),
                        .field(3, "create_time", T.timestamp),
                        .field(4, "update_time", T.timestamp),
                    ]),
                MessageSchema(
                    "google.firestore.v1.Value",
                    [
                        .oneof("value_type", 11, "null_value", T.nullValue),
                        .oneof("value_type", 1, "boolean_value", .bool),
                        .oneof("value_type", 2, "integer_value", .int64),
                        .oneof("value_type", 3, "double_value", .double),
                        .oneof("value_type", 10, "timestamp_value", T.timestamp),
                        .oneof("value_type", 17, "string_value", .string),
                        .oneof("value_type", 18, "bytes_value", .bytes),
                        .oneof("value_type", 5, "reference_value", .string),
                        .oneof("value_type", 8, "geo_point_value", T.latLng),
                        .oneof("value_type", 9, "array_value", T.v1("ArrayValue")),
                        .oneof("value_type", 6, "map_value", T.v1("MapValue")),
                        // Pipelines only (enterprise edition); carried so such values round-trip.
                        .oneof("value_type", 19, "field_reference_value", .string),
                        .oneof("value_type", 22, "variable_reference_value", .string),
                        .oneof("value_type", 20, "function_value", T.v1("Function")),
                        .oneof("value_type", 21, "pipeline_value", T.v1("Pipeline")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.ArrayValue",
                    [
                        .repeated(1, "values", T.v1("Value"))
                    ]),
                MessageSchema(
                    "google.firestore.v1.MapValue",
                    [
                        .map(1, "fields", .string, T.v1("Value"))
                    ]),
                MessageSchema(
                    "google.firestore.v1.Function",
                    [
                        .field(1, "name", .string),
                        .repeated(2, "args", T.v1("Value")),
                        .map(3, "options", .string, T.v1("Value")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.Pipeline",
                    [
                        .repeated(1, "stages", T.v1("Pipeline.Stage"))
                    ]),
                MessageSchema(
                    "google.firestore.v1.Pipeline.Stage",
                    [
                        .field(1, "name", .string),
                        .repeated(2, "args", T.v1("Value")),
                        .map(3, "options", .string, T.v1("Value")),
                    ]),
            ]
        )
    }
}
