// emulator-fuzz: fuzzes the parsers and decoders that take untrusted input (the targets live in
// Fuzz/Targets, see docs/robustness.md). Two builds of the same command:
//   swift build && .build/debug/emulator-fuzz <target> [--seconds N] [--seed S]
//       a deterministic mutation fuzzer (no coverage), the quick smoke test;
//   Fuzz/run.sh [seconds] [target ...]  (builds with -sanitize=fuzzer,address -DLIBFUZZER)
//       libFuzzer, coverage-guided: emulator-fuzz <target> [libFuzzer flags] [corpus dirs].
// Targets: http, json, value, query, rules, jwt, hpack, protobuf, http2, functions, regex, webchannel,
// indexes, pubsub.

#if canImport(Glibc)
import Glibc
#endif

#if LIBFUZZER
exit(LibFuzzerDriver.main())
#else
MutationHarness.main()
#endif
