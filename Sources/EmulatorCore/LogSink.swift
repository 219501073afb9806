/// Severity of a log line; `info` is the default threshold.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug = 0, info, warning, error

    /// Parses `debug|info|warn|warning|error` (case-insensitive).
    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warn", "warning": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    /// Lower-case name.
    public var name: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .warning: return "warning"
        case .error: return "error"
        }
    }

    /// Orders by severity.
    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// Where services send log lines. The process-wide implementation (stderr) lives in `Emulator`;
/// services only see this protocol, so Core stays free of I/O.
public protocol LogSink: Sendable {
    /// Records `message` at `level`, tagged with the emitting component (`auth`, `store`, ...).
    func log(_ level: LogLevel, _ component: String, _ message: String)
    /// Whether a line at `level` would be kept: callers skip building messages nobody reads.
    func isEnabled(_ level: LogLevel) -> Bool
}

extension LogSink {
    /// Every level, unless the sink says otherwise.
    public func isEnabled(_ level: LogLevel) -> Bool { true }
}

/// Discards everything (tests and silent embedding).
public struct NullLogSink: LogSink {
    /// Creates the sink.
    public init() {}
    /// Drops the line.
    public func log(_ level: LogLevel, _ component: String, _ message: String) {}
    /// None.
    public func isEnabled(_ level: LogLevel) -> Bool { false }
}
