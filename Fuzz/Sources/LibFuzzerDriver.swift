#if LIBFUZZER
#if canImport(Glibc)
import Glibc
#endif
import EmulatorFuzzTargets

/// libFuzzer's entry point for programs with their own `main` (the runtime is linked whole, and
/// SwiftPM's `--defsym main=...` makes this module's `main` the one that runs).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target libFuzzer drives, chosen before the driver starts and never changed after.
nonisolated(unsafe) var fuzzedTarget = FuzzTarget.json

/// One execution: libFuzzer calls this with each input. A property violation becomes a trap so
/// libFuzzer records it like any crash. Also satisfies the runtime's `FuzzerMain.o`, which
/// references this symbol even though its `main` is not used.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    do { try fuzzedTarget.run(bytes) } catch { fatalError("emulator-fuzz: \(error)") }
    return 0
}

/// Runs libFuzzer on the target named by the first argument.
enum LibFuzzerDriver {
    /// The environment variable carrying the target: libFuzzer re-executes the program with the
    /// same flags for `-fork`, `-jobs` and `-merge`, and the target name (not a flag) is not
    /// among them, so the children find it here.
    static let targetVariable = "EMULATOR_FUZZ_TARGET"

    /// Picks the target (first argument, else the environment), removes it from the arguments
    /// and hands the rest to libFuzzer. Returns libFuzzer's exit status.
    static func main() -> CInt {
        var args = Array(UnsafeBufferPointer(start: CommandLine.unsafeArgv, count: Int(CommandLine.argc)))
        if args.count > 1, let name = args[1].map({ String(cString: $0) }), let t = FuzzTarget(rawValue: name) {
            fuzzedTarget = t
            setenv(targetVariable, name, 1)
            args.remove(at: 1)
        } else if let name = getenv(targetVariable).map({ String(cString: $0) }), let t = FuzzTarget(rawValue: name) {
            fuzzedTarget = t
        } else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            print("usage: emulator-fuzz \(names) [libFuzzer flags] [corpus dirs]")
            return 2
        }
        var argc = CInt(args.count)
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: args.count + 1)
        argv.initialize(from: args, count: args.count)
        argv[args.count] = nil
        // The driver returns (rather than exiting) in -jobs mode: free the array then.
        defer { argv.deallocate() }
        var argvPointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return LLVMFuzzerRunDriver(&argc, &argvPointer, fuzzTestOneInput)
    }
}
#endif
