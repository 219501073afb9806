/// Every random value a service needs (document ids, uids, codes, refresh tokens, event ids)
/// comes from here, so a project can be switched to a seeded, reproducible sequence.
///
/// Unseeded it draws from the system generator; `reseed(_:)` switches to SplitMix64 from a seed.
/// State is behind a `Mutex`. Not for key material: signing keys come from `EmulatorCrypto`.
public final class IDGenerator: Sendable {
    private let state: Mutex<UInt64?>

    /// Creates a generator, seeded when `seed` is given.
    public init(seed: UInt64? = nil) { state = Mutex(seed) }

    /// Switches to a reproducible sequence from `seed`, or back to system randomness with `nil`.
    public func reseed(_ seed: UInt64?) { state.withLock { $0 = seed } }

    /// The current seed state (nil when unseeded); used by snapshots to capture the sequence.
    public var seedState: UInt64? { state.withLock { $0 } }

    /// A uniformly random 64-bit value.
    public func next() -> UInt64 {
        state.withLock { Self.splitMix(&$0) }
    }

    /// A uniform integer in `0..<bound`, without modulo bias; 0 when `bound` is 0.
    public func next(below bound: UInt64) -> UInt64 {
        guard bound > 0 else { return 0 }
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let v = next()
            if v < limit { return v % bound }
        }
    }

    /// `length` characters drawn uniformly from `alphabet`.
    ///
    /// Seeded, the characters are the ones `next(below:)` picks one after another (a seeded
    /// sequence never changes). Unseeded, an alphabet of printable ASCII takes its characters from
    /// the bytes of a few system random values (rejection-sampled, so still uniform): one system
    /// call per eight characters rather than one per character (this runs on every generated
    /// document id).
    public func string(length: Int, alphabet: String) -> String {
        guard length > 0 else { return "" }
        let ascii = Array(alphabet.utf8)
        guard !ascii.isEmpty, ascii.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            // Anything else goes by Characters (a byte is not a character there).
            let chars = Array(alphabet)
            var out = ""
            out.reserveCapacity(length)
            for _ in 0..<length { out.append(chars[Int(next(below: UInt64(chars.count)))]) }
            return out
        }
        let picks: [UInt8] = state.withLock { s in
            var out = [UInt8]()
            out.reserveCapacity(length)
            if s != nil {
                for _ in 0..<length { out.append(ascii[Int(Self.draw(&s, below: UInt64(ascii.count)))]) }
                return out
            }
            // Bytes below the largest multiple of the alphabet's size map uniformly onto it.
            let limit = 256 - 256 % ascii.count
            var g = SystemRandomNumberGenerator()
            while out.count < length {
                var v: UInt64 = g.next()
                for _ in 0..<8 where out.count < length {
                    let b = Int(v & 0xFF)
                    v >>= 8
                    if b < limit { out.append(ascii[b % ascii.count]) }
                }
            }
            return out
        }
        return String(decoding: picks, as: UTF8.self)
    }

    /// `next(below:)` on a seeded state already locked: the same values in the same order.
    private static func draw(_ s: inout UInt64?, below bound: UInt64) -> UInt64 {
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let v = splitMix(&s)
            if v < limit { return v % bound }
        }
    }

    /// One SplitMix64 step of a seeded state (the system generator when unseeded).
    private static func splitMix(_ s: inout UInt64?) -> UInt64 {
        guard var x = s else {
            var g = SystemRandomNumberGenerator()
            return g.next()
        }
        // SplitMix64 (public domain).
        x &+= 0x9E37_79B9_7F4A_7C15
        s = x
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Letters and digits, the alphabet of Firestore auto ids and Firebase uids.
    public static let alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

    /// A 20-character Firestore auto id.
    public func documentID() -> String { string(length: 20, alphabet: Self.alphanumerics) }

    /// A 28-character Firebase uid.
    public func uid() -> String { string(length: 28, alphabet: Self.alphanumerics) }

    /// `count` decimal digits (SMS codes).
    public func digits(_ count: Int) -> String { string(length: count, alphabet: "0123456789") }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var v = next()
            for _ in 0..<8 where out.count < count {
                out.append(UInt8(truncatingIfNeeded: v))
                v >>= 8
            }
        }
        return out
    }
}
