import Emulator

// The executable is a thin shell around the library's command-line entry point.
await EmulatorCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
