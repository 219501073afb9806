import EmulatorCore

/// One stored object: Cloud Storage's metadata plus its bytes (`blob`). A value type, so the
/// service's state and snapshots are copy-on-write copies that share blobs.
public struct StorageObject: Sendable {
    /// Bucket name.
    public var bucket: String
    /// Object name (`images/a.png`).
    public var name: String
    /// Content generation: a microsecond timestamp, new for each upload, copy or compose.
    public var generation: Int64
    /// Metadata generation: 1 at creation, +1 per metadata change.
    public var metageneration: Int64
    /// The writable metadata (content headers, custom metadata).
    public var metadata: ObjectMetadata
    /// Firebase download tokens (the `token=` of download URLs), in creation order.
    public var downloadTokens: [String]
    /// `STANDARD` (storage classes are not emulated).
    public var storageClass: String
    /// When this generation was created.
    public var timeCreated: Timestamp
    /// Last metadata or content change.
    public var updated: Timestamp
    /// The bytes.
    public var blob: Blob

    /// Where generations and metagenerations read from a record or an import must lie: below
    /// 2^53, so adding one never overflows (an imported `Int64.max` would have trapped the next
    /// write) and JavaScript clients read them exactly.
    public static let counterRange: Range<Int64> = 1..<(1 << 53)

    /// Creates an object.
    public init(
        bucket: String, name: String, generation: Int64, metageneration: Int64 = 1, metadata: ObjectMetadata,
        downloadTokens: [String] = [], storageClass: String = "STANDARD", timeCreated: Timestamp, updated: Timestamp, blob: Blob
    ) {
        self.bucket = bucket
        self.name = name
        self.generation = generation
        self.metageneration = metageneration
        self.metadata = metadata
        self.downloadTokens = downloadTokens
        self.storageClass = storageClass
        self.timeCreated = timeCreated
        self.updated = updated
        self.blob = blob
    }

    /// Size in bytes.
    public var size: Int64 { blob.size }

    /// The content type, `application/octet-stream` when none was given.
    public var contentType: String { metadata.contentType ?? "application/octet-stream" }

    /// An opaque tag that changes with the content or the metadata (Cloud Storage's `etag`).
    public var etag: String {
        var bytes: [UInt8] = []
        for v in [UInt64(bitPattern: generation), UInt64(bitPattern: metageneration)] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((v >> UInt64(shift)) & 0xFF)) }
        }
        return Base64.encode(bytes)
    }

    /// `md5Hash` as Cloud Storage prints it (base64).
    public var md5Base64: String { Base64.encode(blob.md5) }

    /// `crc32c` as Cloud Storage prints it (base64 of the big-endian value).
    public var crc32cBase64: String { CRC32C.base64(blob.crc32c) }
}

/// The metadata a client may set on an object.
public struct ObjectMetadata: Sendable, Equatable {
    /// `Content-Type` served with the bytes.
    public var contentType: String?
    /// `Content-Encoding` (`gzip` objects are decompressed for clients that do not accept gzip).
    public var contentEncoding: String?
    /// `Content-Disposition`.
    public var contentDisposition: String?
    /// `Content-Language`.
    public var contentLanguage: String?
    /// `Cache-Control`.
    public var cacheControl: String?
    /// A user-settable time (may only move forward, as in Cloud Storage).
    public var customTime: Timestamp?
    /// Custom key/value metadata.
    public var custom: [String: String]
    /// Access control entries as given (kept and echoed; ACLs are not enforced).
    public var acl: JSON?

    /// Empty metadata.
    public init(
        contentType: String? = nil, contentEncoding: String? = nil, contentDisposition: String? = nil, contentLanguage: String? = nil,
        cacheControl: String? = nil, customTime: Timestamp? = nil, custom: [String: String] = [:], acl: JSON? = nil
    ) {
        self.contentType = contentType
        self.contentEncoding = contentEncoding
        self.contentDisposition = contentDisposition
        self.contentLanguage = contentLanguage
        self.cacheControl = cacheControl
        self.customTime = customTime
        self.custom = custom
        self.acl = acl
    }
}

/// A change to one metadata field: leave it, remove it, or set it.
public enum FieldChange<Value: Sendable & Equatable>: Sendable, Equatable {
    /// Leave the field as it is.
    case keep
    /// Remove the field.
    case remove
    /// Set the field.
    case set(Value)

    /// The field after the change.
    public func applied(to old: Value?) -> Value? {
        switch self {
        case .keep: return old
        case .remove: return nil
        case .set(let v): return v
        }
    }
}

/// A metadata update: PATCH semantics (fields not mentioned stay), or a full replacement (PUT,
/// `replace`: every field not given is cleared).
public struct ObjectMetadataPatch: Sendable, Equatable {
    /// `contentType`.
    public var contentType: FieldChange<String> = .keep
    /// `contentEncoding`.
    public var contentEncoding: FieldChange<String> = .keep
    /// `contentDisposition`.
    public var contentDisposition: FieldChange<String> = .keep
    /// `contentLanguage`.
    public var contentLanguage: FieldChange<String> = .keep
    /// `cacheControl`.
    public var cacheControl: FieldChange<String> = .keep
    /// `customTime`.
    public var customTime: FieldChange<Timestamp> = .keep
    /// Custom metadata: keys to set (a value) or remove (nil); nil leaves all keys.
    public var custom: [String: String?]?
    /// Remove every custom key first (`"metadata": null`).
    public var clearCustom = false
    /// Access control entries.
    public var acl: FieldChange<JSON> = .keep
    /// Firebase's `firebaseStorageDownloadTokens` key seen in `custom`: replaces the tokens.
    public var downloadTokens: [String]?
    /// Replace all writable metadata (objects.update) instead of merging (objects.patch).
    public var replace = false

    /// No change.
    public init() {}
}

extension ObjectMetadata {
    /// The optional content headers that are set, by the names every JSON form of an object uses
    /// (`contentEncoding`, `contentDisposition`, `contentLanguage`, `cacheControl`), in that
    /// order: one list for the journal record, the Firebase export and the JSON API.
    public var contentHeaderFields: [(name: String, value: String)] {
        let all: [(String, String?)] = [
            ("contentEncoding", contentEncoding), ("contentDisposition", contentDisposition),
            ("contentLanguage", contentLanguage), ("cacheControl", cacheControl),
        ]
        return all.compactMap { name, value in value.map { (name, $0) } }
    }

    /// Metadata whose content type and content headers are `json`'s string members of those names
    /// (the journal record's and the Firebase export's form).
    public init(headersFrom json: JSON, customTime: Timestamp?, custom: [String: String], acl: JSON?) {
        self.init(
            contentType: json["contentType"]?.stringValue, contentEncoding: json["contentEncoding"]?.stringValue,
            contentDisposition: json["contentDisposition"]?.stringValue, contentLanguage: json["contentLanguage"]?.stringValue,
            cacheControl: json["cacheControl"]?.stringValue, customTime: customTime, custom: custom, acl: acl)
    }
}
