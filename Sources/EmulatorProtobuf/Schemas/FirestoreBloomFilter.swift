/// google/firestore/v1/bloom_filter.proto: ExistenceFilter.unchanged_names.
extension FirestoreSchemas {
    /// The declarations of this file.
    static func firestoreBloomFilter() -> ProtoFile {
        ProtoFile(
            path: "google/firestore/v1/bloom_filter.proto",
            messages: [
                MessageSchema(
                    "google.firestore.v1.BitSequence",
                    [
                        .field(1, "bitmap", .bytes),
                        .field(2, "padding", .int32),
                    ]),
                MessageSchema(
                    "google.firestore.v1.BloomFilter",
                    [
                        .field(1, "bits", T.v1("BitSequence")),
                        .field(2, "hash_count", .int32),
                    ]),
            ]
        )
    }
}
