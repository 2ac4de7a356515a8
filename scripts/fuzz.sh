#!/usr/bin/env bash
# Builds mepi's libFuzzer target in the clang ASan build (build-asan/, configured by
# configure-sanitized.sh: everything instrumented for coverage, ASan and UBSan) and runs it for SECONDS (default 60) over a scratch copy
# of test/Fuzz/corpus; any crash or timeout fails. The seed is $MEPI_FUZZ_SEED (default 1), so
# that the test command's minute repeats itself; pass -seed=0 for a fresh one.
#   scripts/fuzz.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
fuzz="${MEPI_ASAN_BUILD_DIR:-$root/build-asan}"
bash "$root/scripts/configure-sanitized.sh" asan "$fuzz"
ninja -C "$fuzz" -j "${MEPI_JOBS:-$(nproc)}" mepi-fuzz-epilog > /dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$fuzz/artifacts" # a crash's input is kept in artifacts/
cp "$root"/test/Fuzz/corpus/* "$work/corpus/"
# Leaks are MLIR's own (contexts kept per thread); a plan of 10 s is a hang.
log="$work/fuzz.log"
set +e
ASAN_OPTIONS=detect_leaks=0 "$fuzz/bin/mepi-fuzz-epilog" "$work/corpus" \
  -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
  -print_final_stats=1 -artifact_prefix="$fuzz/artifacts/" -seed="${MEPI_FUZZ_SEED:-1}" "$@" \
  > "$log" 2>&1
status=$?
set -e
grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\)' "$log" | tail -60
echo "fuzz: $seconds s, exit $status"
if [ "$status" -eq 0 ]; then echo "fuzz: 1 passed, 0 failed"; else echo "fuzz: 0 passed, 1 failed"; fi
exit "$status"
