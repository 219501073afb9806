#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (see docs/robustness.md):
#   Fuzz/run.sh [seconds-per-target] [target ...]      default: 60 s, every target
# Builds emulator-fuzz in release with `-sanitize=fuzzer,address -DLIBFUZZER` (lld; scratch path
# .build-fuzz), then runs each target for the given time. The working corpus is
# .build-fuzz/corpus/<target>, grown from the committed seeds Fuzz/corpus/<target>/ and the
# regression inputs Fuzz/regressions/<target>/ (neither is ever written). Crashing, leaking,
# timing-out and out-of-memory inputs go to Fuzz/crashes/<target>/. Prints one summary line per
# target; exits 1 when the build fails or any target crashed.
set -uo pipefail
cd "$(dirname "$0")/.."

all=(http json value query rules jwt hpack protobuf http2 functions regex webchannel indexes storage pubsub)
seconds=60
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "unknown target '$t' (${all[*]})"; exit 2; }
done
scratch=.build-fuzz
flags=(-c release --product emulator-fuzz --scratch-path "$scratch"
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLIBFUZZER -Xswiftc -use-ld=lld
  # Release builds of EmulatorHTTP skip the run-time exclusivity checks (Package.swift); the
  # fuzzers keep them, so an overlapping access found by a fuzzer traps here.
  -Xswiftc -enforce-exclusivity=checked)

mkdir -p "$scratch/logs"
echo "== building emulator-fuzz (release, libFuzzer + AddressSanitizer; log: $scratch/logs/build.log)"
build_start=$SECONDS
if ! swift build "${flags[@]}" >"$scratch/logs/build.log" 2>&1; then
  grep -m 30 -E 'error' "$scratch/logs/build.log"
  echo "fuzz build failed (full log: $scratch/logs/build.log)"
  exit 1
fi
echo "   built in $((SECONDS - build_start)) s"
bin="$(swift build "${flags[@]}" --show-bin-path)/emulator-fuzz"

# The Swift runtime's backtracer would catch the fatal signal before libFuzzer writes the input.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"

summary=()
status=0
for t in "${targets[@]}"; do
  case "$t" in
    http) dict=Fuzz/dict/http.dict ;;
    http2) dict=Fuzz/dict/http2.dict ;;
    json | value | query | indexes) dict=Fuzz/dict/json.dict ;;
    rules) dict=Fuzz/dict/rules.dict ;;
    regex) dict=Fuzz/dict/regex.dict ;;
    protobuf) dict=Fuzz/dict/protobuf.dict ;;
    webchannel) dict=Fuzz/dict/webchannel.dict ;;
    *) dict= ;;
  esac
  work="$scratch/corpus/$t"
  crashes="Fuzz/crashes/$t"
  log="$scratch/logs/$t.log"
  mkdir -p "$work" "$crashes"
  echo "== fuzzing $t for $seconds s (log: $log)"
  # The first corpus directory receives new inputs; the committed ones are only read.
  "$bin" "$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" ${dict:+-dict="$dict"} -print_final_stats=1 \
    "$work" "Fuzz/corpus/$t" "Fuzz/regressions/$t" >"$log" 2>&1
  rc=$?
  # -print_final_stats=1 prints these after a normal end and after a crash alike.
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9A-Za-z]+).*/\1/p' <<<"$last")
  found=$(sed -nE "s/.*Test unit written to (.*)$/\1/p" "$log")
  ncrash=$(grep -c . <<<"$found")
  if [ "$rc" != 0 ]; then
    status=1
    grep -m1 -E 'Fatal error|==[0-9]+== ?ERROR' "$log" | sed "s/^/   $t: /"
    [ "$ncrash" = 0 ] && ncrash="1 (exit $rc, no input written; see $log)"
    for f in $found; do echo "   crash input: $f"; done
  fi
  summary+=("$(printf '%-8s %10s execs  %7s exec/s  cov %-5s ft %-6s corpus %-12s crashes %s' \
    "$t" "${runs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$ncrash")")
done

echo "== fuzz summary ($seconds s per target, release + ASan)"
printf '%s\n' "${summary[@]}"
exit $status
