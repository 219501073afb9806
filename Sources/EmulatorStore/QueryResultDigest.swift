/// A 128-bit digest of a query's results (each document's path bytes and update time, in order),
/// kept by a transaction in place of the result set: a query of 10,000 documents cost its
/// transaction a dictionary of 10,000 paths until the commit.
///
/// Two SipHash passes (`Hasher`, keyed with the process's random seed) with different leading
/// tags give two independent 64-bit halves: different results share a digest with probability
/// about 2^-128, far below anything a test could meet. The same documents in the same state come
/// in the same order, so this order-sensitive digest changes exactly when the set of (path, update
/// time) pairs does, which is what the commit compared before: an update time is its commit's
/// time, so it names one version of a document.
struct QueryResultDigest: Sendable, Equatable {
    private let high: Int
    private let low: Int

    /// The digest of `docs`.
    init(_ docs: [Document]) {
        high = Self.half(tag: 0xA5, docs)
        low = Self.half(tag: 0x5A, docs)
    }

    private static func half(tag: UInt8, _ docs: [Document]) -> Int {
        var hasher = Hasher()
        hasher.combine(tag)
        hasher.combine(docs.count)
        for d in docs {
            // Bytes, not the String: `String` hashes canonically equivalent spellings alike, and
            // ids differing only in Unicode normalisation are different documents.
            var path = d.path
            path.withUTF8 { bytes in
                hasher.combine(bytes.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            }
            hasher.combine(d.updateTime)
        }
        return hasher.finalize()
    }
}
