#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test (lit suite check-mepi).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MEPI_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" "$build"

log="$(mktemp)"
set +e
/usr/lib/llvm-22/bin/lit -v "$build/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$( (grep -hE '^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:' "$log" || true) |
         sed 's/.*: *\([0-9]*\).*/\1/' | awk '{s+=$1} END {print s+0}')
echo "lit: ${passed:-0} passed, ${failed:-0} failed"

# GoogleTest: runtime pieces that need no GPU (planner through cubin, driver table, ...).
set +e
"$build/bin/mepi-unittests" 2>&1 | tee "$log"
ustatus=${PIPESTATUS[0]}
set -e
upassed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
ufailed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
rm -f "$log"
echo "unittests: ${upassed:-0} passed, ${ufailed:-0} failed"
log="$(mktemp)"

# The GPU suite's problems, planned and compiled to sm_90a cubins without a GPU.
set +e
"$build/bin/mepi-gpu-tests" --compile-only 2>&1 | tee "$log"
cstatus=${PIPESTATUS[0]}
set -e
cpassed=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | tail -1)
cfailed=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | tail -1)
rm -f "$log"
echo "compile-only: ${cpassed:-0} passed, ${cfailed:-0} failed"

total_passed=$(( ${passed:-0} + ${upassed:-0} + ${cpassed:-0} ))
total_failed=$(( ${failed:-0} + ${ufailed:-0} + ${cfailed:-0} ))
echo "${total_passed} passed, ${total_failed} failed"
[ "${passed:-0}" -gt 0 ] && [ "${upassed:-0}" -gt 0 ] || { echo "test: no test ran" >&2; exit 1; }
[ "$status" -eq 0 ] && [ "$ustatus" -eq 0 ] && [ "$cstatus" -eq 0 ]
