import EmulatorCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `level component: message` lines to stderr when at or above `threshold`.
/// Stateless apart from the threshold; each line is one `write(2)`, so lines never interleave.
public struct StderrLogger: LogSink {
    /// Lines below this level are dropped.
    public let threshold: LogLevel

    /// Creates a logger with a threshold (default `info`).
    public init(threshold: LogLevel = .info) { self.threshold = threshold }

    /// Writes the line when it passes the threshold.
    public func log(_ level: LogLevel, _ component: String, _ message: String) {
        guard level >= threshold else { return }
        let line = "\(level.name) \(component): \(message)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { p in write(2, p.baseAddress, p.count - 1) }
    }

    /// At or above the threshold.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= threshold }
}
