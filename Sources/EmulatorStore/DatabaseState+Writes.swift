import EmulatorCore

/// The outcome of one applied write.
public struct AppliedWrite: Sendable, Equatable {
    /// Document path.
    public var path: String
    /// The document before the write.
    public var before: Document?
    /// The document after it (nil when deleted or absent).
    public var after: Document?
    /// `updateTime` of the write result (nil for deletes).
    public var updateTime: Timestamp?
    /// Results of the field transforms, in order.
    public var transformResults: [Value]
}

extension DatabaseState {
    /// The largest document Firestore stores.
    static let maxDocumentSize = 1_048_576

    /// Applies one write at `time`. Throws (and changes nothing) when a precondition fails or
    /// the result is invalid.
    mutating func apply(_ w: StoreWrite, at time: Timestamp, fullName: String) throws -> AppliedWrite {
        if let failure = try unmetPrecondition(w, at: time, fullName: fullName) { throw failure }
        return try applyIgnoringPrecondition(w, at: time, fullName: fullName)
    }

    /// The error `w`'s precondition fails with now, or nil when it holds (or there is none).
    /// Throws only for a precondition that is invalid in itself (an update time after the commit).
    func unmetPrecondition(_ w: StoreWrite, at time: Timestamp, fullName: String) throws -> EmulatorError? {
        let before = docs[w.path]
        switch w.precondition {
        case .exists(true)? where before == nil:
            return EmulatorError.notFound("No document to update: \(fullName)")
        case .exists(false)? where before != nil:
            return EmulatorError.alreadyExists("Document already exists: \(fullName)")
        case .updateTime(let t)?:
            // A time after the commit cannot be anyone's update time: production refuses it as
            // an invalid argument rather than a failed precondition.
            guard t <= time else {
                throw EmulatorError.invalidArgument(
                    "The update_time precondition \(t.rfc3339()) for \(fullName) is in the future (the commit time is \(time.rfc3339())).")
            }
            // A missing document has version 0: a failed precondition like any other mismatch.
            guard let b = before, b.updateTime == t else {
                let stored = before?.updateTime.microseconds ?? 0
                return EmulatorError.failedPrecondition("the stored version (\(stored)) does not match the required base version (\(t.microseconds))")
            }
            return nil
        default: return nil
        }
    }

    /// Applies one write at `time` as if its precondition held (the commit judges rules on what
    /// a write would do before it reports a failed precondition). Throws (and changes nothing)
    /// when the result is invalid.
    mutating func applyIgnoringPrecondition(_ w: StoreWrite, at time: Timestamp, fullName: String) throws -> AppliedWrite {
        let before = docs[w.path]
        if case .verify = w.operation {
            return AppliedWrite(path: w.path, before: before, after: before, updateTime: before?.updateTime, transformResults: [])
        }
        if case .delete = w.operation {
            remove(w.path, at: time)
            return AppliedWrite(path: w.path, before: before, after: nil, updateTime: nil, transformResults: [])
        }
        var fields = before?.fields ?? FieldMap()
        if case .update(let input) = w.operation {
            if let mask = w.updateMask {
                for p in mask {
                    try p.segments.forEach { try FieldPath.validateName($0) }
                    p.set(p.get(in: input), in: &fields)
                }
            } else {
                fields = input
            }
        }
        var results: [Value] = []
        for t in w.transforms {
            let (v, r) = t.apply(to: t.path.get(in: fields), time: time)
            t.path.set(v, in: &fields)
            results.append(r)
        }
        if let b = before, b.fields == fields {
            // Nothing changed: the update time stays.
            return AppliedWrite(path: w.path, before: b, after: b, updateTime: b.updateTime, transformResults: results)
        }
        try Value.validateFieldSizes(fields)
        let doc = Document(path: w.path, fields: fields, createTime: before?.createTime ?? time, updateTime: time)
        guard doc.storageSize <= Self.maxDocumentSize else {
            throw EmulatorError.invalidArgument("Document \(fullName) exceeds the maximum size of 1 MiB (\(doc.storageSize) bytes).")
        }
        put(doc)
        return AppliedWrite(path: w.path, before: before, after: doc, updateTime: time, transformResults: results)
    }
}
