import EmulatorPubSub
import Foundation
import Testing

@testable import Emulator

/// The server limits and the Pub/Sub project budget are configurable (issue 22): `limits` in emulator.json and the flags,
/// with ranges and unknown keys reported like every other config error.
@Suite struct LimitsConfigTests {
    @Test func defaultsAreTheDocumentedOnes() {
        let l = EmulatorConfig().limits
        #expect(l.maxConnections == nil && l.maxStreamsPerConnection == 1000 && l.maxStreams == 10_000 && l.outputBufferBytes == 1 << 20)
        #expect(l.eventLoops == 1 && l.maxBufferedBodyBytes == 512 << 20)
        #expect(l.pubsubMaxProjectMessages == 5_000_000 && l.pubsubMaxProjectBytes == 1 << 30 && l.pubsub == .standard)
    }

    @Test func theConfigFileSetsEveryLimitAndFlagsOverrideIt() throws {
        let dir = try TempDir()
        let path = try dir.write(
            "emulator.json",
            #"{"limits": {"maxConnections": 4000, "maxStreamsPerConnection": 200, "maxStreams": 50000, "outputBufferBytes": 4194304, "eventLoops": 3, "maxBufferedBodyBytes": 1073741824, "pubsubMaxProjectMessages": 1000, "pubsubMaxProjectBytes": 65536}}"#
        )
        var c = EmulatorConfig()
        try ConfigLoader.load(path: path, into: &c)
        #expect(c.limits.maxConnections == 4000 && c.limits.maxStreamsPerConnection == 200)
        #expect(c.limits.maxStreams == 50_000 && c.limits.outputBufferBytes == 4 << 20 && c.limits.eventLoops == 3)
        #expect(c.limits.maxBufferedBodyBytes == 1 << 30)
        #expect(c.limits.pubsub.maxProjectMessages == 1000 && c.limits.pubsub.maxProjectBytes == 65_536)
        #expect(c.limits.pubsub.maxMessages == PubSubLimits.standard.maxMessages)
        try CommandLineOptions.parse(["start", "--max-connections", "5000", "--max-streams-per-connection=300", "--event-loops", "2"]).apply(to: &c)
        #expect(c.limits.maxConnections == 5000 && c.limits.maxStreamsPerConnection == 300 && c.limits.maxStreams == 50_000)
        #expect(c.limits.eventLoops == 2)
    }

    @Test(arguments: [
        (
            #"{"limits": {"maxConnection": 5}}"#,
            "unknown key 'limits.maxConnection' (known: eventLoops, maxBufferedBodyBytes, maxConnections, maxStreams, maxStreamsPerConnection, outputBufferBytes, pubsubMaxProjectBytes, pubsubMaxProjectMessages)"
        ),
        (#"{"limits": {"maxStreams": 0}}"#, "'limits.maxStreams' must be an integer from 1 to 10000000, got 0"),
        (#"{"limits": {"outputBufferBytes": "1MB"}}"#, "'limits.outputBufferBytes' must be an integer from 16384 to 1073741824, got \"1MB\""),
        (#"{"limits": 5}"#, "'limits' must be an object like {\"maxConnections\": 2048}"),
        (#"{"limits": {"eventLoops": 9}}"#, "'limits.eventLoops' must be an integer from 1 to 8, got 9"),
        (#"{"limits": {"pubsubMaxProjectMessages": 0}}"#, "'limits.pubsubMaxProjectMessages' must be an integer from 1 to 1000000000, got 0"),
    ])
    func badLimitsNameTheProblem(json: String, message: String) throws {
        let dir = try TempDir()
        let path = try dir.write("emulator.json", json)
        var c = EmulatorConfig()
        #expect(throws: CLIError("config file '\(path)': \(message)")) { try ConfigLoader.load(path: path, into: &c) }
    }

    @Test func badLimitFlagsNameTheProblem() throws {
        var c = EmulatorConfig()
        #expect(throws: CLIError("--max-connections must be an integer from 1 to 1000000, got 'lots'")) {
            try CommandLineOptions.parse(["start", "--max-connections", "lots"]).apply(to: &c)
        }
        #expect(throws: CLIError("--event-loops must be an integer from 1 to 8, got '0'")) {
            try CommandLineOptions.parse(["start", "--event-loops", "0"]).apply(to: &c)
        }
        #expect(CommandLineOptions.usage.contains("--max-streams-per-connection") && CommandLineOptions.usage.contains("--event-loops"))
    }
}
