import EmulatorCore

/// google.protobuf.Duration in proto3 JSON (`"600s"`, `"1.5s"`), as seconds.
enum PubSubDuration {
    /// The seconds of a Duration text, or nil when malformed.
    static func seconds(_ json: JSON?) -> Double? {
        guard let text = json?.stringValue, text.hasSuffix("s"), let v = Double(text.dropLast()), v.isFinite else { return nil }
        return v
    }

    /// The Duration text of whole or fractional seconds (`"604800s"`, `"0.500s"`).
    static func text(_ seconds: Double) -> JSON {
        let micros = Int64((seconds * 1_000_000).rounded())
        if micros % 1_000_000 == 0 { return .string("\(micros / 1_000_000)s") }
        let ms = micros / 1000
        let frac = String(ms % 1000)
        return .string("\(ms / 1000).\(String(repeating: "0", count: 3 - frac.count) + frac)s")
    }
}
