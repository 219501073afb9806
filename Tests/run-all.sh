#!/usr/bin/env bash
# Runs every test: the Swift suites, then the Python real-client suites against the built
# emulator. Installs what it needs (OpenSSL headers via apt when missing; Python packages in a
# local virtualenv). Exit status is non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! pkg-config --exists openssl zlib 2>/dev/null; then
  echo "== installing libssl-dev, zlib1g-dev and pkg-config"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq libssl-dev zlib1g-dev pkg-config
  else sudo apt-get update -qq && sudo apt-get install -y -qq libssl-dev zlib1g-dev pkg-config; fi
fi

# Headless Chromium for the web UI's browser tests (Tests/python/ui).
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  echo "== installing chromium and chromium-driver"
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; fi
fi

# The release binary links statically; one `import Foundation` in a product module adds
# CoreFoundation and ICU (about 40 MB). FoundationEssentials is fine (docs/architecture.md).
# FirebaseEmulatorTesting (the testing library for apps' tests) and EmulatorTestSupport are not
# in the binary, and the library needs URLSession.
if full=$(grep -rlE '^\s*(@_exported\s+)?import\s+Foundation\s*$' Sources --include=*.swift | grep -vE '^Sources/(EmulatorFunctionsWorker|FirebaseEmulatorTesting)/'); then
  echo "$full"
  echo "product modules must not import the full Foundation (use FoundationEssentials; see 'Foundation' in docs/architecture.md)"
  exit 1
fi

# No trap on input-derived values (SECURITY.md, "No trap on input"): a force unwrap, `try!`, `as!`,
# `fatalError` or `precondition` in a product module must say why it cannot trap (`// trap-ok:`).
echo "== trap check (scripts/check-traps.py)"
python3 scripts/check-traps.py || exit 1

# The UI's scripts are plain files (Sources/Emulator/UI/assets/, docs/ui.md): a syntax error fails
# here in a second, before any build. Node only parses them (`--check` runs nothing).
if command -v node >/dev/null 2>&1; then
  echo "== node --check on the UI's scripts"
  for f in Sources/Emulator/UI/assets/*.js; do node --check "$f" || exit 1; done
else
  echo "== JS syntax check skipped: no 'node' on PATH (the browser tests in Tests/python/ui still load every script)"
fi

mkdir -p .build
echo "== swift build"
if ! swift build --build-tests >.build/build.log 2>&1; then
  grep -m 50 -E 'error' .build/build.log
  echo "swift build failed (full log: .build/build.log)"
  exit 1
fi

echo "== swift test"
# --no-parallel: on two cores, CPU-heavy suites (HPACK, protobuf, fuzz replays) running in
# parallel occupy the whole cooperative pool for seconds, and the socket tests whose servers
# answer from that pool then time out. Serially the suite takes about 20 s.
set +e
swift test --skip-build --no-parallel >.build/swift-test.log 2>&1
swift_status=$?
set -e
grep -E '^(✘|✔ Test run|error: )' .build/swift-test.log || tail -20 .build/swift-test.log

# The testing library against the built binary (in `swift test` above its live half talks to an
# emulator started in process), and the MakeItSo story as Swift tests against the example's
# emulator (rules, signed tokens, the Swift functions worker). About 20 s.
echo "== swift testing library and MakeItSo tests under emulator exec"
set +e
kits_status=0
.build/debug/emulator exec --port 0 --log-level error -- swift test --skip-build --no-parallel --filter FirebaseEmulatorTestingTests >.build/kits-test.log 2>&1 || kits_status=1
.build/debug/emulator exec --port 0 --log-level error --config Examples/MakeItSo/emulator.json -- swift test --skip-build --no-parallel --filter MakeItSoTests >>.build/kits-test.log 2>&1 || kits_status=1
set -e
grep -E '^(✘|✔ Test run|error: )' .build/kits-test.log || tail -20 .build/kits-test.log
[ "$kits_status" = 0 ] || swift_status=1

fuzz_status=0
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== fuzz: libFuzzer + AddressSanitizer, 5 s per target (SKIP_SANITIZERS=1: deterministic smoke instead; longer runs: docs/robustness.md)"
  Fuzz/run.sh 5 || fuzz_status=1
else
  echo "== fuzz smoke (deterministic, 2 s per target; longer runs: docs/robustness.md)"
  for t in http json value query rules jwt hpack protobuf http2 functions regex webchannel indexes storage pubsub; do
    .build/debug/emulator-fuzz "$t" --seconds 2 --seed "$RANDOM" || fuzz_status=1
  done
fi

tsan_status=0
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== swift test under ThreadSanitizer (SKIP_SANITIZERS=1 skips)"
  set +e
  swift build --build-tests --sanitize=thread --scratch-path .build-tsan >.build/tsan-build.log 2>&1 &&
    swift test --skip-build --no-parallel --sanitize=thread --scratch-path .build-tsan >.build/tsan-test.log 2>&1
  tsan_status=$?
  set -e
  grep -E '^(✘|✔ Test run|error: )|SUMMARY: ThreadSanitizer' .build/tsan-test.log .build/tsan-build.log 2>/dev/null | sort -u | sed -n 1,20p || true
fi

echo "== python real-client suites"
if [ ! -x .venv/bin/python ]; then python3 -m venv --system-site-packages .venv; fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r Tests/python/requirements.txt
set +e
EMULATOR_BIN="$PWD/.build/debug/emulator" .venv/bin/python -m pytest -q -p no:cacheprovider Tests/python
py_status=$?
# The pytest plugin (testing/python), installed as users install it; its tests run sample user
# suites in subprocesses, with and without -n 2 and `emulator exec` (about 45 s).
echo "== pytest-firebase-emulator (testing/python)"
.venv/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall ./testing/python >/dev/null &&
  FIREBASE_EMULATOR_BIN="$PWD/.build/debug/emulator" .venv/bin/python -m pytest -q -p no:cacheprovider testing/python/tests || py_status=1
# docs/testing.md's example suite for the MakeItSo backend, as its readers run it (about 10 s).
FIREBASE_EMULATOR_BIN="$PWD/.build/debug/emulator" .venv/bin/python -m pytest -q -p no:cacheprovider -p no:benchmark Examples/MakeItSo/pytest -n 2 || py_status=1
# Differential run against Google's Firestore emulator (docs/differences.md): a fixed seed and a
# budget that fits CI (50-80 s: 300 core, 100 rules and 30 listen cases); one line and no
# failure where Java or the jar is absent.
# Longer: Tests/differential/run.sh --seed 1 --cases 2000.
echo "== differential run against Google's Firestore emulator (Tests/differential)"
EMULATOR_BIN="$PWD/.build/debug/emulator" Tests/differential/run.sh || py_status=1
rm -rf testing/python/build
set -e

# The release artifact and its proof (scripts/package.sh, scripts/check-package.sh): a static
# release build (2-6 minutes on two cores; reused when nothing changed), then the packaged binary
# under chroot in a minimal Debian root (debootstrap about 35 s once, cached in .build-chroot/;
# the checks about 5 s). On by default in the full run (CI runs as root); PACKAGE_CHECK=1 or 0
# overrides, e.g. PACKAGE_CHECK=1 SKIP_SANITIZERS=1.
package_status=0
if [ "${PACKAGE_CHECK:-$([ "${SKIP_SANITIZERS:-0}" = 1 ] && echo 0 || echo 1)}" = 1 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== release package + chroot check without Swift (PACKAGE_CHECK=0 skips)"
    scripts/check-package.sh || package_status=1
    # The optimised binary, the one people run, against every real-client suite the debug build
    # ran above: in a release build a value's lifetime ends at its last use (one build freed a
    # key's PEM before reading it while every debug test passed), and timing differs. About
    # 4 minutes with two workers; the packaged binary, so no build of its own.
    packaged=(dist/emulator-*-linux-*/emulator)
    if [ "$package_status" = 0 ] && [ -x "${packaged[0]}" ]; then
      echo "== the packaged release binary against Tests/python (every suite, -n 2)"
      EMULATOR_BIN="$PWD/${packaged[0]}" .venv/bin/python -m pytest -q -p no:cacheprovider -n 2 Tests/python || package_status=1
    elif [ "$package_status" = 0 ]; then
      echo "no packaged binary under dist/ after scripts/check-package.sh"
      package_status=1
    fi
  else
    echo "== release package check skipped: needs root (debootstrap, chroot); run: sudo scripts/check-package.sh"
  fi
fi

echo "== summary: swift exit $swift_status, fuzz exit $fuzz_status, tsan exit $tsan_status, python exit $py_status, package exit $package_status"
[ "$swift_status" = 0 ] && [ "$fuzz_status" = 0 ] && [ "$tsan_status" = 0 ] && [ "$py_status" = 0 ] && [ "$package_status" = 0 ]
