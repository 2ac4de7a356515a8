#!/usr/bin/env bash
# The main job: lowers the sample matmul + bias + GELU (examples/bias_gelu.mlir) stage by stage
# with mepi-opt, prints a summary of each stage, writes the PTX, assembles it with ptxas, and runs
# the same problem on the GPU (checked against fp64) when there is one.
#   scripts/demo.sh [mepi-opt] [input.mlir] [output-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
opt="${1:-$root/build/bin/mepi-opt}"
input="${2:-$root/examples/bias_gelu.mlir}"
out="${3:-$root/out}"
mkdir -p "$out"
name="$(basename "$input" .mlir)"

summarize() { # one line: op count per dialect
  grep -oE '(^|[ "=])(mepi|gpu|nvvm|llvm|arith|math|scf|memref|func|cf)\.[a-z_.]+' "$1" |
    sed -E 's/^[ "=]//; s/\..*//' | sort | uniq -c | sort -rn |
    awk '{printf "%s%s=%s", (NR>1?", ":""), $2, $1} END {print ""}'
}

echo "== mepi: $input"
for stage in parsed epilog config kernel nvvm ptx; do
  file="$out/$name.$stage.mlir"
  if [ "$stage" = parsed ]; then
    "$opt" "$input" -o "$file"
  else
    "$opt" "$input" --mepi-lower-to-ptx="stop-after=$stage" -o "$file"
  fi
  case "$stage" in
    parsed|epilog) note="$(grep -oE 'inputs\([^)]*\)' "$file" | head -1)" ;;
    config) note="$(grep -oE '#mepi.kernel_config<([^<>]|<[^<>]*>)*>' "$file" | head -1)" ;;
    kernel) note="kernels: $(grep -oE 'gpu.func @[a-z0-9_]+' "$file" | sed 's/gpu.func //' | tr '\n' ' ')" ;;
    nvvm) note="$(grep -oE '#nvvm.target<[^>]*>' "$file" | head -1)" ;;
    ptx) note="gpu.binary objects: $(grep -c '#gpu.object' "$file")" ;;
  esac
  printf '%-7s %4d lines  %-50s %s\n' "$stage" "$(wc -l < "$file")" "$(summarize "$file")" "$note"
done

ptx="$out/$name.ptx"
"$opt" "$input" --mepi-lower-to-ptx="ptx-file=$ptx" -o /dev/null
entries=$(grep -c '^\.visible \.entry' "$ptx")
echo "ptx     $(wc -l < "$ptx") lines, $(grep -m1 '^\.target' "$ptx"), $entries kernel(s): $ptx"
if grep -q '__nv_' "$ptx"; then
  echo "error: unresolved libdevice calls in $ptx" >&2
  exit 1
fi

ptxas="$(command -v ptxas || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ptxas")"
run_sample="$(dirname "$opt")/mepi-gpu-tests"
if [ -x "$ptxas" ]; then
  "$ptxas" -arch=sm_90a -v "$ptx" -o "$out/$name.cubin" 2>&1 | sed 's/^/ptxas   /'
  echo "cubin   $(stat -c %s "$out/$name.cubin") bytes: $out/$name.cubin"
else
  echo "ptxas not found: PTX written but not assembled"
fi

# The same problem through the runtime: run on the GPU and checked against fp64 when there is
# one; otherwise compiled only (and said so).
if [ -x "$run_sample" ] && [ "$(basename "$input")" = bias_gelu.mlir ]; then
  "$run_sample" --sample | sed 's/^/gpu     /'
fi
