/// A command-line or configuration problem: printed as one line, exit code 2.
public struct CLIError: Error, Equatable, CustomStringConvertible {
    /// The one-line message naming the problem.
    public var description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}
