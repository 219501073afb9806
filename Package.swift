// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0 (LICENSE)
// The emulator: Foundation, Dispatch, Glibc and OpenSSL only (no third-party packages, by design).
import PackageDescription

let package = Package(
    name: "FirebaseStyleEmulator",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "emulator", targets: ["emulator"]),
        .library(name: "Emulator", targets: ["Emulator"]),
        .library(name: "EmulatorFunctionsWorker", targets: ["EmulatorFunctionsWorker"]),
        // For app test targets (XCTest, Swift Testing): a project per test in a running emulator (docs/testing.md).
        .library(name: "FirebaseEmulatorTesting", targets: ["FirebaseEmulatorTesting"]),
    ],
    targets: [
        // System library: OpenSSL's libcrypto, found with pkg-config (Debian: libssl-dev).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        // System library: zlib, to serve gzip-encoded Storage objects to clients that do not accept gzip.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // Pure model: JSON, paths, clock, ids, canonical errors, auth context. No I/O.
        .target(name: "EmulatorCore"),
        // epoll/eventfd for the HTTP event loop (not in Swift's Glibc module map).
        .target(name: "CEpoll"),
        // posix_spawn with a working directory and close-from, and the wait-status macros, for child processes.
        .target(name: "CSpawn"),
        // The UI's files and the Python launcher, embedded at build time with C23 #embed (the files
        // live beside the code that serves them; docs/architecture.md, "Assets").
        .target(name: "CAssets"),
        // Hand-written HTTP/1.1 and HTTP/2 server, request parser and router. Release builds skip
        // the run-time exclusivity checks of this module only: its state is one loop thread's
        // (cross-thread state is behind `Mutex`), each access to a class's stored property paid a
        // thread-local lookup, and they were 9% of a gRPC call's instructions. Debug builds (every
        // test, ThreadSanitizer included) and the fuzz builds keep them (docs/architecture.md).
        .target(
            name: "EmulatorHTTP", dependencies: ["EmulatorCore", "CEpoll"],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),
        // The only importer of OpenSSL: RS256, JWKS, hashes, password KDFs, secure random.
        .target(name: "EmulatorCrypto", dependencies: ["EmulatorCore", "COpenSSL"]),
        // Security Rules language: lexer, parser, checker, evaluator.
        .target(name: "EmulatorRules", dependencies: ["EmulatorCore"]),
        // Services. They never import each other or EmulatorHTTP.
        .target(name: "EmulatorAuth", dependencies: ["EmulatorCore", "EmulatorCrypto"]),
        .target(name: "EmulatorStore", dependencies: ["EmulatorCore"]),
        // google.pubsub.v1 topics, subscriptions, delivery, snapshots and seek (proto3 JSON in and out).
        .target(name: "EmulatorPubSub", dependencies: ["EmulatorCore"]),
        .target(name: "EmulatorFunctions", dependencies: ["EmulatorCore", "CSpawn", "CAssets"], exclude: ["Python/launcher"]),
        // Cloud Storage for Firebase: buckets, objects, generations, tokens, resumable sessions; bytes in a blob store.
        .target(name: "EmulatorStorage", dependencies: ["EmulatorCore", "EmulatorCrypto"]),
        // Schema-driven proto3 codec: protobuf bytes <-> proto3 JSON, Firestore/gRPC schemas.
        .target(name: "EmulatorProtobuf", dependencies: ["EmulatorCore"]),
        // Library for writing a functions worker in Swift (serves the worker protocol).
        .target(name: "EmulatorFunctionsWorker", dependencies: ["EmulatorCore", "EmulatorHTTP", "EmulatorFunctions"]),
        // Wiring, configuration, REST mapping, admin API, the one error-to-response mapper.
        .target(
            name: "Emulator",
            dependencies: [
                "EmulatorCore", "EmulatorHTTP", "EmulatorCrypto", "EmulatorRules",
                "EmulatorAuth", "EmulatorStore", "EmulatorPubSub", "EmulatorFunctions", "EmulatorProtobuf", "EmulatorStorage", "CZlib", "CAssets",
            ],
            exclude: ["UI/assets"]
        ),
        .executableTarget(name: "emulator", dependencies: ["Emulator"]),
        // The testing library for apps' tests: full Foundation and URLSession, no emulator modules (docs/testing.md).
        .target(name: "FirebaseEmulatorTesting"),
        // The same library served in process (no sockets) for this package's own tests.
        .target(name: "EmulatorTestSupport", dependencies: ["Emulator", "FirebaseEmulatorTesting"]),
        // Fuzz targets over the parsers and decoders, deterministic per input (see docs/robustness.md).
        .target(
            name: "EmulatorFuzzTargets",
            dependencies: [
                "EmulatorHTTP", "EmulatorStore", "EmulatorPubSub", "EmulatorRules", "EmulatorAuth", "EmulatorCrypto", "EmulatorProtobuf",
                "EmulatorFunctions", "EmulatorStorage",
            ], path: "Fuzz/Targets"),
        // Runs a target: a deterministic mutation fuzzer, or libFuzzer when built by Fuzz/run.sh (-DLIBFUZZER).
        .executableTarget(name: "emulator-fuzz", dependencies: ["EmulatorFuzzTargets"], path: "Fuzz/Sources"),
        // The MakeItSo example's functions codebase, run by the emulator as a worker.
        .executableTarget(name: "makeitso-functions", dependencies: ["EmulatorFunctionsWorker"], path: "Examples/MakeItSo/Functions"),
        .executableTarget(name: "bench-functions", dependencies: ["EmulatorFunctionsWorker"], path: "bench/Functions"),
        // Measures EmulatorProtobuf's encode/decode speed (bench/run.sh; never asserted in a test).
        .executableTarget(name: "bench-protobuf", dependencies: ["EmulatorProtobuf"], path: "bench/Protobuf"),

        .testTarget(name: "EmulatorCoreTests", dependencies: ["EmulatorCore"]),
        .testTarget(name: "EmulatorHTTPTests", dependencies: ["EmulatorHTTP"], exclude: ["Fixtures"]),
        .testTarget(name: "EmulatorCryptoTests", dependencies: ["EmulatorCrypto"]),
        .testTarget(name: "EmulatorRulesTests", dependencies: ["EmulatorRules"], resources: [.copy("Conformance")]),
        .testTarget(name: "EmulatorAuthTests", dependencies: ["EmulatorAuth", "EmulatorCrypto"]),
        .testTarget(name: "EmulatorStoreTests", dependencies: ["EmulatorStore"]),
        .testTarget(name: "EmulatorPubSubTests", dependencies: ["EmulatorPubSub"]),
        .testTarget(name: "EmulatorFunctionsTests", dependencies: ["EmulatorFunctions"]),
        .testTarget(name: "EmulatorStorageTests", dependencies: ["EmulatorStorage"]),
        .testTarget(name: "EmulatorProtobufTests", dependencies: ["EmulatorProtobuf"], resources: [.copy("Fixtures")]),
        .testTarget(name: "EmulatorTests", dependencies: ["Emulator", "EmulatorTestSupport", "EmulatorFunctionsWorker"]),
        .testTarget(name: "FirebaseEmulatorTestingTests", dependencies: ["FirebaseEmulatorTesting", "EmulatorTestSupport"]),
        // The MakeItSo story as Swift tests against a running emulator (Tests/run-all.sh runs them under `emulator exec`).
        .testTarget(name: "MakeItSoTests", dependencies: ["FirebaseEmulatorTesting"], path: "Examples/MakeItSo/Tests"),
        .testTarget(name: "EmulatorFuzzTargetsTests", dependencies: ["EmulatorFuzzTargets", "EmulatorRules", "EmulatorHTTP"]),
    ],
    swiftLanguageModes: [.v6]
)
