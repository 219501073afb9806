import EmulatorCore
import EmulatorHTTP
import EmulatorStorage

/// Object and bucket metadata in the two wire shapes, and metadata read from request bodies:
/// the Firebase API's (`/v0`: numbers as strings, `downloadTokens` comma-joined) and the Cloud
/// Storage JSON API's (`storage#object`, `selfLink`, `mediaLink`, tokens as the custom key
/// `firebaseStorageDownloadTokens`, which is where production keeps them).
enum StorageJSON {
    /// The custom metadata key that holds download tokens in the JSON API.
    static let tokensKey = "firebaseStorageDownloadTokens"

    /// The Firebase API's metadata resource.
    static func firebase(_ o: StorageObject) -> JSON {
        var j: UTF8Dictionary<JSON> = [
            "name": .string(o.name), "bucket": .string(o.bucket),
            "generation": .string(String(o.generation)), "metageneration": .string(String(o.metageneration)),
            "contentType": .string(o.contentType), "timeCreated": .string(o.timeCreated.rfc3339(fractionDigits: 3)),
            "updated": .string(o.updated.rfc3339(fractionDigits: 3)), "storageClass": .string(o.storageClass),
            "size": .string(String(o.size)), "md5Hash": .string(o.md5Base64), "crc32c": .string(o.crc32cBase64),
            "etag": .string(o.etag), "contentEncoding": .string(o.metadata.contentEncoding ?? "identity"),
            "contentDisposition": .string(
                o.metadata.contentDisposition ?? "inline; filename*=utf-8''" + PercentEncoding.encode(lastComponent(o.name))),
        ]
        if !o.downloadTokens.isEmpty { j["downloadTokens"] = .string(o.downloadTokens.joined(separator: ",")) }
        if let v = o.metadata.contentLanguage { j["contentLanguage"] = .string(v) }
        if let v = o.metadata.cacheControl { j["cacheControl"] = .string(v) }
        if let v = o.metadata.customTime { j["customTime"] = .string(v.rfc3339(fractionDigits: 3)) }
        if !o.metadata.custom.isEmpty { j["metadata"] = .object(o.metadata.custom.mapValues { .string($0) }) }
        return .object(j)
    }

    /// The JSON API's `storage#object`; links point at `base` (`http://host:port`).
    static func gcs(_ o: StorageObject, base: String, full: Bool = false) -> JSON {
        let enc = PercentEncoding.encode(o.name)
        var j: UTF8Dictionary<JSON> = [
            "kind": "storage#object", "id": .string("\(o.bucket)/\(o.name)/\(o.generation)"),
            "selfLink": .string("\(base)/storage/v1/b/\(PercentEncoding.encode(o.bucket))/o/\(enc)"),
            "mediaLink": .string("\(base)/download/storage/v1/b/\(PercentEncoding.encode(o.bucket))/o/\(enc)?generation=\(o.generation)&alt=media"),
            "name": .string(o.name), "bucket": .string(o.bucket),
            "generation": .string(String(o.generation)), "metageneration": .string(String(o.metageneration)),
            "contentType": .string(o.contentType), "storageClass": .string(o.storageClass), "size": .string(String(o.size)),
            "md5Hash": .string(o.md5Base64), "crc32c": .string(o.crc32cBase64), "etag": .string(o.etag),
            "timeCreated": .string(o.timeCreated.rfc3339(fractionDigits: 3)), "updated": .string(o.updated.rfc3339(fractionDigits: 3)),
            "timeStorageClassUpdated": .string(o.timeCreated.rfc3339(fractionDigits: 3)),
            "timeFinalized": .string(o.timeCreated.rfc3339(fractionDigits: 3)),
        ]
        for (name, value) in o.metadata.contentHeaderFields { j[name] = .string(value) }
        if let v = o.metadata.customTime { j["customTime"] = .string(v.rfc3339(fractionDigits: 3)) }
        var custom = o.metadata.custom.mapValues { JSON.string($0) }
        if !o.downloadTokens.isEmpty { custom[tokensKey] = .string(o.downloadTokens.joined(separator: ",")) }
        if !custom.isEmpty { j["metadata"] = .object(custom) }
        if full || o.metadata.acl != nil, let acl = o.metadata.acl { j["acl"] = acl }
        return .object(j)
    }

    /// The JSON API's `storage#bucket` (location and class as created; the rest canned).
    static func bucket(_ b: StorageBucket, base: String) -> JSON {
        [
            "kind": "storage#bucket", "id": .string(b.name), "name": .string(b.name),
            "selfLink": .string("\(base)/storage/v1/b/\(PercentEncoding.encode(b.name))"),
            "projectNumber": "000000000000", "metageneration": .string(String(b.metageneration)),
            "location": .string(b.location), "locationType": .string(b.location.contains("-") ? "region" : "multi-region"),
            "storageClass": .string(b.storageClass), "etag": "CAE=",
            "timeCreated": .string(b.timeCreated.rfc3339(fractionDigits: 3)), "updated": .string(b.updated.rfc3339(fractionDigits: 3)),
            "iamConfiguration": [
                "bucketPolicyOnly": ["enabled": false], "uniformBucketLevelAccess": ["enabled": false], "publicAccessPrevention": "inherited",
            ],
            "rpo": "DEFAULT",
        ]
    }

    /// The last `/`-separated part of a name (the download file name).
    static func lastComponent(_ name: String) -> String {
        name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
    }

    /// Metadata fields of an upload or a patch body (both APIs use these names).
    static func patch(from body: UTF8Dictionary<JSON>, replace: Bool = false) throws -> ObjectMetadataPatch {
        var p = ObjectMetadataPatch()
        p.replace = replace
        func text(_ key: String) throws -> FieldChange<String> {
            guard let v = body[key] else { return replace ? .remove : .keep }
            if v.isNull { return .remove }
            guard let s = v.stringValue else { throw EmulatorError.invalidArgument("'\(key)' must be a string, got \(v.kindName).") }
            return .set(s)
        }
        p.contentType = try text("contentType")
        p.contentEncoding = try text("contentEncoding")
        p.contentDisposition = try text("contentDisposition")
        p.contentLanguage = try text("contentLanguage")
        p.cacheControl = try text("cacheControl")
        switch try text("customTime") {
        case .keep: p.customTime = .keep
        case .remove: p.customTime = .remove
        case .set(let s):
            guard let t = Timestamp(rfc3339: s) else { throw EmulatorError.invalidArgument("'customTime' must be an RFC 3339 time, got '\(s)'.") }
            p.customTime = .set(t)
        }
        if let acl = body["acl"] { p.acl = acl.isNull ? .remove : .set(acl) } else if replace { p.acl = .remove }
        if let m = body["metadata"], !m.isNull {
            guard case .object(let o) = m else { throw EmulatorError.invalidArgument("'metadata' must be an object of strings.") }
            var custom: [String: String?] = [:]
            for (k, v) in o {
                let value: String?
                switch v {
                case .null: value = nil
                case .string(let s): value = s
                case .int(let n): value = String(n)
                case .double(let d): value = String(d)
                case .bool(let b): value = String(b)
                default: throw EmulatorError.invalidArgument("'metadata.\(k)' must be a string, got \(v.kindName).")
                }
                if k == tokensKey {
                    p.downloadTokens = (value ?? "").split(separator: ",").map { String($0).trimming(" ") }.filter { !$0.isEmpty }
                } else {
                    custom[k] = .some(value)
                }
            }
            p.custom = custom
        } else if body["metadata"]?.isNull == true {
            p.clearCustom = true
        }
        return p
    }

    /// The metadata of a new object from an upload's JSON metadata (unset fields stay unset).
    static func uploadMetadata(from body: UTF8Dictionary<JSON>) throws -> (ObjectMetadata, tokens: [String]?) {
        let p = try patch(from: body)
        var m = ObjectMetadata()
        m.contentType = p.contentType.applied(to: nil)
        m.contentEncoding = p.contentEncoding.applied(to: nil)
        m.contentDisposition = p.contentDisposition.applied(to: nil)
        m.contentLanguage = p.contentLanguage.applied(to: nil)
        m.cacheControl = p.cacheControl.applied(to: nil)
        m.customTime = p.customTime.applied(to: nil)
        m.acl = p.acl.applied(to: nil)
        for (k, v) in p.custom ?? [:] { if let v { m.custom[k] = v } }
        return (m, p.downloadTokens)
    }
}
