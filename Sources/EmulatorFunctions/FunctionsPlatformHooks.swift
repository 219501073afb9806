import EmulatorCore

/// What the wiring layer hears from the functions host about the platform around it: a function
/// was registered (so the Pub/Sub topic a trigger listens to exists, as deploying creates it), and
/// a schedule fired (so its Cloud Scheduler message is published on the schedule's topic).
public struct FunctionsPlatformHooks: Sendable {
    /// `(project, definition)` after every registration.
    public let registered: Callback<@Sendable (String, FunctionDefinition) -> Void>
    /// `(project, function name, region, schedule time)` for every scheduled run queued.
    public let scheduled: Callback<@Sendable (String, String, String, Timestamp) -> Void>

    /// Creates the hooks.
    public init(
        registered: @escaping @Sendable (String, FunctionDefinition) -> Void,
        scheduled: @escaping @Sendable (String, String, String, Timestamp) -> Void
    ) {
        self.registered = Callback(registered)
        self.scheduled = Callback(scheduled)
    }
}
