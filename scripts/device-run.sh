#!/usr/bin/env bash
# Runs on the device machine, in the repository root: unpacks .bundle/mepi-bundle.tar.xz and runs
# the named sets, writing logs (at most a few files) under $OUT.
#   scripts/device-run.sh smoke        mepi-opt lowers the sample to PTX; ptxas -v assembles it
#   scripts/device-run.sh gpu-tests    the GPU correctness suite (fp64 reference, every case)
#   scripts/device-run.sh examples     the C++ and C host programs of examples/ (installed mepi)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-$root/out}"
mkdir -p "$out"
work=/tmp/mepi-device
rm -rf "$work" && mkdir -p "$work"
xz -dc "$root/.bundle/mepi-bundle.tar.xz" | tar -C "$work" -xf - || { echo "no bundle" >&2; exit 1; }
bundle="$work/mepi"
export PATH="/usr/local/cuda/bin:$PATH"

run_smoke() {
  {
    echo "== device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1)"
    echo "== host: $(uname -m), $(ldd --version | head -1)"
    echo "== bundle revision: $(cat "$bundle/REVISION")"
    echo "== mepi-opt needs: $(ldd "$bundle/bin/mepi-opt" | awk '{print $1}' | tr '\n' ' ')"
    bash "$bundle/scripts/demo.sh" "$bundle/bin/mepi-opt" "$bundle/examples/bias_gelu.mlir" \
      "$work/smoke"
  } 2>&1 | tee "$out/smoke.log"
  local status=${PIPESTATUS[0]}
  cp "$work/smoke/bias_gelu.ptx" "$out/" 2>/dev/null
  return "$status"
}

run_gpu_tests() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader \
    > "$out/gpu-tests.log" 2>&1
  "$bundle/bin/mepi-gpu-tests" 2>&1 | tee -a "$out/gpu-tests.log"
  return "${PIPESTATUS[0]}"
}

run_examples() {
  local status=0
  : > "$out/examples.log"
  for example in linear_relu_bias linear_gelu_c; do
    LD_LIBRARY_PATH="$bundle/lib" "$bundle/bin/$example" 2>&1 | tee -a "$out/examples.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
  return "$status"
}

status=0
for set in "${@:-smoke}"; do
  case "$set" in
    smoke) run_smoke || status=1 ;;
    gpu-tests) run_gpu_tests || status=1 ;;
    examples) run_examples || status=1 ;;
    *) echo "device-run: unknown set '$set' (known: smoke, gpu-tests, examples)" >&2; status=2 ;;
  esac
done
echo "device-run: exit $status"
exit "$status"
