import EmulatorCore

/// What loading the data directory found besides the records (`finishLoading`).
public struct StorageLoadReport: Sendable, Equatable {
    /// Files no record refers to (uploads whose record never landed, files of deleted objects
    /// whose removal a crash interrupted): deleted.
    public var orphansRemoved: Int
    /// Objects whose file is missing or shorter than recorded (`gs://bucket/name`): dropped.
    public var missing: [String]

    /// Creates a report.
    public init(orphansRemoved: Int, missing: [String]) {
        self.orphansRemoved = orphansRemoved
        self.missing = missing
    }
}
