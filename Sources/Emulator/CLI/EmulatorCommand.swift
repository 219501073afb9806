/// The `emulator` command line (`start`, `exec`, `--help`, `--version`).
public enum EmulatorCommand {
    /// Runs the command and exits the process with its status.
    public static func main(arguments: [String]) async {
        print("emulator \(EmulatorVersion.current)")
    }
}
