import EmulatorCore

/// One bucket's own metadata (Cloud Storage's `storage#bucket`; most of it canned).
public struct StorageBucket: Sendable, Equatable {
    /// The bucket name (global across projects, as in Cloud Storage).
    public var name: String
    /// The project that owns it (resets and snapshots are per project).
    public var project: String
    /// Creation time.
    public var timeCreated: Timestamp
    /// Last change.
    public var updated: Timestamp
    /// Metadata generation.
    public var metageneration: Int64
    /// Location (`US` unless given at creation).
    public var location: String
    /// Default storage class (`STANDARD` unless given at creation).
    public var storageClass: String

    /// Creates bucket metadata.
    public init(name: String, project: String, timeCreated: Timestamp, location: String = "US", storageClass: String = "STANDARD") {
        self.name = name
        self.project = project
        self.timeCreated = timeCreated
        self.updated = timeCreated
        self.metageneration = 1
        self.location = location
        self.storageClass = storageClass
    }

    /// The buckets every project has from the start: `{project}.appspot.com` and
    /// `{project}.firebasestorage.app`.
    public static func defaultNames(of project: String) -> [String] {
        ["\(project).appspot.com", "\(project).firebasestorage.app"]
    }

    /// The project whose default bucket `name` is, if it is one.
    public static func defaultProject(of name: String) -> String? {
        for suffix in [".appspot.com", ".firebasestorage.app"] where name.hasSuffix(suffix) && name.count > suffix.count {
            return String(name.dropLast(suffix.count))
        }
        return nil
    }
}

/// One bucket's metadata and objects. A value type (copy-on-write snapshots).
public struct BucketState: Sendable {
    /// The bucket's metadata.
    public var bucket: StorageBucket
    /// Live objects by name (no versioning: one generation per name).
    public var objects: [String: StorageObject] = [:]

    /// Creates an empty bucket.
    public init(bucket: StorageBucket) { self.bucket = bucket }

    /// Bytes of every object in the bucket.
    public var storedBytes: Int64 { objects.values.reduce(0) { $0 + $1.size } }
}
