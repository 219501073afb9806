/// google/type/latlng.proto: geo points (Value.geo_point_value).
extension FirestoreSchemas {
    /// The declarations of this file.
    static func googleTypeLatLng() -> ProtoFile {
        ProtoFile(
            path: "google/type/latlng.proto",
            messages: [
                MessageSchema(
                    "google.type.LatLng",
                    [
                        .field(1, "latitude", .double),
                        .field(2, "longitude", .double),
                    ])
            ]
        )
    }
}
