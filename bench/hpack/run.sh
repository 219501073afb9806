#!/usr/bin/env bash
# HPACK micro-benchmark (see docs/benchmarks.md): compiles the HPACK sources and bench/hpack/main.swift
# into one optimized executable (no package build needed) and runs it. Prints timings; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/hpack-bench
mkdir -p .build
swiftc -O -wmo -module-name HPACKBench Sources/EmulatorHTTP/HPACK/*.swift bench/hpack/main.swift -o "$out"
"$out"
