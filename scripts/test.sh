#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test that needs no GPU:
# the lit suite (check-mepi), the GoogleTest suites (runtime internals, the public API, the
# runtime's error paths under a fake driver), the Python package's tests that need no GPU, and
# the GPU suite's problems compiled only; the runtime's tests and the lit suite again under
# ASan and UBSan and a minute of the libFuzzer target (one clang build), the runtime's tests
# under TSan.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MEPI_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" "$build"

# A fresh on-disk kernel cache for this run: every first plan compiles, nothing in $HOME changes.
MEPI_CACHE_DIR="$(mktemp -d)"
export MEPI_CACHE_DIR
trap 'rm -rf "$MEPI_CACHE_DIR"' EXIT

total_passed=0
total_failed=0
# The suites that exited non-zero or ran no test: a failing run names them in its last line.
bad_suites=""
# run_suite NAME PASSED-SED FAILED-SED COMMAND...: runs a suite, prints and adds up its counts.
run_suite() {
  local name=$1 passed_re=$2 failed_re=$3 log status passed failed
  shift 3
  log="$(mktemp)"
  set +e
  "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  passed=$(sed -n "$passed_re" "$log" | tail -1)
  failed=$(sed -n "$failed_re" "$log" | awk '{s+=$1} END {print s+0}')
  rm -f "$log"
  echo "$name: ${passed:-0} passed, ${failed:-0} failed"
  total_passed=$((total_passed + ${passed:-0}))
  total_failed=$((total_failed + ${failed:-0}))
  if [ "$status" -ne 0 ] || [ "${passed:-0}" -eq 0 ]; then
    bad_suites="$bad_suites $name(exit $status, ${passed:-0} passed)"
  fi
}

run_suite lit 's/^ *Passed *: *\([0-9]*\).*/\1/p' \
  's/^ *\(Failed\|Unresolved\|Timed Out\|Unexpectedly Passed\) *: *\([0-9]*\).*/\2/p' \
  /usr/lib/llvm-22/bin/lit -v "$build/test"
run_suite unittests 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' \
  's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$build/bin/mepi-unittests"
run_suite api-tests 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' \
  's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$build/bin/mepi-api-tests"
run_suite fault-tests 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' \
  's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$build/bin/mepi-fault-tests"
run_suite python 's/^\(.* \)\{0,1\}\([0-9][0-9]*\) passed.*/\2/p' \
  's/^\(.* \)\{0,1\}\([0-9][0-9]*\) failed.*/\2/p' \
  env PYTHONPATH="$root/python" MEPI_LIBRARY="$build/lib/libmepi.so.0" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider "$root/python/tests"
run_suite compile-only 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p' \
  's/^[0-9]* passed, \([0-9]*\) failed$/\1/p' "$build/bin/mepi-gpu-tests" --compile-only

# sanitized NAME DIR: the runtime's unit and fault tests built in DIR, configured by
# configure-sanitized.sh NAME (a build of what they link), and run; the caller sets the
# sanitizer's options.
sanitized() {
  local name=$1 dir=$2
  bash "$root/scripts/configure-sanitized.sh" "$name" "$dir"
  ninja -C "$dir" -j "${MEPI_JOBS:-$(nproc)}" mepi-unittests mepi-fault-tests > /dev/null
  run_suite "unittests-$name" 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' \
    's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$dir/bin/mepi-unittests"
  run_suite "fault-tests-$name" 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' \
    's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$dir/bin/mepi-fault-tests"
}

# Under AddressSanitizer and UndefinedBehaviorSanitizer, leaks included (a clang build that
# the libFuzzer target shares).
asan="${MEPI_ASAN_BUILD_DIR:-$root/build-asan}"
export MEPI_ASAN_BUILD_DIR="$asan"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 sanitized asan "$asan"
# The lit suite again with mepi-opt and the C API's programs of that build (their libraries are
# the ones just built: a minute more): the user's MLIR through the parser and the passes,
# every C entry point and mepi-bench's listing, under both sanitizers. Every tool lit.cfg.py
# names must be built here: a missing one stops lit before it runs a test.
ninja -C "$asan" -j "${MEPI_JOBS:-$(nproc)}" mepi-opt mepi-capi-matmul mepi-capi-epilog-builder \
  mepi-capi-grouped mepi-capi-distributed mepi-bench > /dev/null
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_suite lit-asan 's/^ *Passed *: *\([0-9]*\).*/\1/p' \
  's/^ *\(Failed\|Unresolved\|Timed Out\|Unexpectedly Passed\) *: *\([0-9]*\).*/\2/p' \
  /usr/lib/llvm-22/bin/lit "$asan/test"
# The libFuzzer target over user epilog text and kernel configurations for a minute, in the
# same build (its hour runs by hand: scripts/fuzz.sh 3600).
run_suite fuzz 's/^fuzz: \([0-9]*\) passed.*/\1/p' 's/^fuzz: [0-9]* passed, \([0-9]*\) failed$/\1/p' \
  bash "$root/scripts/fuzz.sh" 60
# Under ThreadSanitizer (the kernel cache and planner compiling distinct keys from several
# threads, the log sink, the disk cache's publication); any report fails the run.
TSAN_OPTIONS=halt_on_error=1 sanitized tsan "${MEPI_TSAN_BUILD_DIR:-$root/build-tsan}"

# The install tree and a consumer of it: examples/ built against find_package(mepi).
rm -rf "$build/install" "$build/examples"
cmake --install "$build" --prefix "$build/install" > /dev/null
cmake -G Ninja -S "$root/examples" -B "$build/examples" -DCMAKE_PREFIX_PATH="$build/install" \
  > /dev/null
ninja -C "$build/examples" > /dev/null
echo "examples: built against the installed tree ($build/install)"
# The installed Python package finds the installed libmepi beside it.
pydir="$(dirname "$(dirname "$(find "$build/install" -path '*/python/mepi/_capi.py')")")"
env -u MEPI_LIBRARY PYTHONPATH="$pydir" /usr/bin/python3 -c \
  'import mepi, mepi._capi as c; print("python: imports from the installed tree:", c.lib._name)'


echo "${total_passed} passed, ${total_failed} failed"
if [ -n "$bad_suites" ] || [ "$total_failed" -ne 0 ]; then
  echo "FAILED:${bad_suites:- some tests failed}"
  exit 1
fi
