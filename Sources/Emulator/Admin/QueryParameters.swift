import EmulatorCore
import EmulatorHTTP

extension HTTPRequest {
    /// The integer query parameter `name` within `range`, or `fallback` when absent; anything else
    /// is INVALID_ARGUMENT naming the parameter and the range.
    func intQuery(_ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = query(name), !text.isEmpty else { return fallback }
        guard let n = Int(text), range.contains(n) else {
            throw EmulatorError.invalidArgument(
                "\(name) must be an integer between \(range.lowerBound) and \(range.upperBound), got '\(text.prefix(40))'.")
        }
        return n
    }

    /// The query parameter `name` when present and not empty.
    func nonEmptyQuery(_ name: String) -> String? {
        guard let v = query(name), !v.isEmpty else { return nil }
        return v
    }
}
