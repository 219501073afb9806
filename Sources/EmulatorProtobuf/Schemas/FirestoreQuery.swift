/// google/firestore/v1/query.proto: structured queries, aggregation queries and cursors.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreQuery() -> ProtoFile {
        let fieldReference = T.v1("StructuredQuery.FieldReference")
        return ProtoFile(
            path: "google/firestore/v1/query.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.StructuredQuery",
                    [
                        .field(1, "select", T.v1("StructuredQuery.Projection")),
                        .repeated(2, "from", T.v1("StructuredQuery.CollectionSelector")),
                        .field(3, "where", T.v1("StructuredQuery.Filter")),
                        .repeated(4, "order_by", T.v1("StructuredQuery.Order")),
                        .field(5, "limit", T.int32Value),
                        .field(6, "offset", .int32),
                        .field(7, "start_at", T.v1("Cursor")),
                        .field(8, "end_at", T.v1("Cursor")),
                        .field(9, "find_nearest", T.v1("StructuredQuery.FindNearest")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.CollectionSelector",
                    [
                        .field(2, "collection_id", .string),
                        .field(3, "all_descendants", .bool),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.Filter",
                    [
                        .oneof("filter_type", 1, "composite_filter", T.v1("StructuredQuery.CompositeFilter")),
                        .oneof("filter_type", 2, "field_filter", T.v1("StructuredQuery.FieldFilter")),
                        .oneof("filter_type", 3, "unary_filter", T.v1("StructuredQuery.UnaryFilter")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.CompositeFilter",
                    [
                        .field(1, "op", T.v1Enum("StructuredQuery.CompositeFilter.Operator")),
                        .repeated(2, "filters", T.v1("StructuredQuery.Filter")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.FieldFilter",
                    [
                        .field(1, "field", fieldReference),
                        .field(2, "op", T.v1Enum("StructuredQuery.FieldFilter.Operator")),
                        .field(3, "value", T.v1("Value")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.UnaryFilter",
                    [
                        .field(1, "op", T.v1Enum("StructuredQuery.UnaryFilter.Operator")),
                        .oneof("operand_type", 2, "field", fieldReference),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.Order",
                    [
                        .field(1, "field", fieldReference),
                        .field(2, "direction", T.v1Enum("StructuredQuery.Direction")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.FieldReference",
                    [
                        .field(2, "field_path", .string)
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.Projection",
                    [
                        .repeated(2, "fields", fieldReference)
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredQuery.FindNearest",
                    [
                        .field(1, "vector_field", fieldReference),
                        .field(2, "query_vector", T.v1("Value")),
                        .field(3, "distance_measure", T.v1Enum("StructuredQuery.FindNearest.DistanceMeasure")),
                        .field(4, "limit", T.int32Value),
                        .field(5, "distance_result_field", .string),
                        .field(6, "distance_threshold", T.doubleValue),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredAggregationQuery",
                    [
                        .oneof("query_type", 1, "structured_query", T.v1("StructuredQuery")),
                        .repeated(3, "aggregations", T.v1("StructuredAggregationQuery.Aggregation")),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredAggregationQuery.Aggregation",
                    [
                        .oneof("operator", 1, "count", T.v1("StructuredAggregationQuery.Aggregation.Count")),
                        .oneof("operator", 2, "sum", T.v1("StructuredAggregationQuery.Aggregation.Sum")),
                        .oneof("operator", 3, "avg", T.v1("StructuredAggregationQuery.Aggregation.Avg")),
                        .field(7, "alias", .string),
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredAggregationQuery.Aggregation.Count",
                    [
                        .field(1, "up_to", T.int64Value)
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredAggregationQuery.Aggregation.Sum",
                    [
                        .field(1, "field", fieldReference)
                    ]),
                MessageSchema(
                    "google.firestore.v1.StructuredAggregationQuery.Aggregation.Avg",
                    [
                        .field(1, "field", fieldReference)
                    ]),
                MessageSchema(
                    "google.firestore.v1.Cursor",
                    [
                        .repeated(1, "values", T.v1("Value")),
                        .field(2, "before", .bool),
                    ]),
            ],
            enums: [
                EnumSchema(
                    "google.firestore.v1.StructuredQuery.Direction",
                    [
                        ("DIRECTION_UNSPECIFIED", 0), ("ASCENDING", 1), ("DESCENDING", 2),
                    ]),
                EnumSchema(
                    "google.firestore.v1.StructuredQuery.CompositeFilter.Operator",
                    [
                        ("OPERATOR_UNSPECIFIED", 0), ("AND", 1), ("OR", 2),
                    ]),
                EnumSchema(
                    "google.firestore.v1.StructuredQuery.FieldFilter.Operator",
                    [
                        ("OPERATOR_UNSPECIFIED", 0), ("LESS_THAN", 1), ("LESS_THAN_OR_EQUAL", 2), ("GREATER_THAN", 3),
                        ("GREATER_THAN_OR_EQUAL", 4), ("EQUAL", 5), ("NOT_EQUAL", 6), ("ARRAY_CONTAINS", 7), ("IN", 8),
                        ("ARRAY_CONTAINS_ANY", 9), ("NOT_IN", 10),
                    ]),
                EnumSchema(
                    "google.firestore.v1.StructuredQuery.UnaryFilter.Operator",
                    [
                        ("OPERATOR_UNSPECIFIED", 0), ("IS_NAN", 2), ("IS_NULL", 3), ("IS_NOT_NAN", 4), ("IS_NOT_NULL", 5),
                    ]),
                EnumSchema(
                    "google.firestore.v1.StructuredQuery.FindNearest.DistanceMeasure",
                    [
                        ("DISTANCE_MEASURE_UNSPECIFIED", 0), ("EUCLIDEAN", 1), ("COSINE", 2), ("DOT_PRODUCT", 3),
                    ]),
            ]
        )
    }
}
