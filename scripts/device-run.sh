#!/usr/bin/env bash
# Runs on the device machine, in the repository root: unpacks .bundle/mepi-bundle.tar.xz and runs
# the named sets, writing logs (at most a few files) under $OUT.
#   scripts/device-run.sh smoke        mepi-opt lowers the sample to PTX; ptxas -v assembles it
#   scripts/device-run.sh gpu-tests    the GPU correctness suite (fp64 reference, every case), in
#                                      8 shards at once
#   scripts/device-run.sh examples     the C++ and C host programs of examples/ (installed mepi)
#   scripts/device-run.sh lto          nvJitLink links a user LTO-IR object (libNVVM lookup)
#   scripts/device-run.sh interop      the ReLU mask against cuBLASLt's, bit for bit (interop.log)
#   scripts/device-run.sh bench        mepi-bench vs cuBLASLt: table in bench.log, JSON in dense.json
#   scripts/device-run.sh batched      mepi-bench --batched (strided batched): batched.log/.json
#   scripts/device-run.sh sweep        mepi-bench --sweep (seeded random problems): sweep.log/.json
#   scripts/device-run.sh tf32         mepi-bench --tf32 (f32 at TF32 precision): tf32.log/.json
#   scripts/device-run.sh f32          mepi-bench --f32 (strict f32 against SGEMM): f32.log/.json
#   scripts/device-run.sh python       the Python package's GPU tests beside torch: python.log
#   scripts/device-run.sh pybench      python -m mepi.bench (mepi against torch): pybench.log/.json
#   scripts/device-run.sh sass         ptxas -v and SASS of the wgmma kernel (bench/kernels/*.mlir)
#   scripts/device-run.sh fp8          FP8: the GPU cases (gpu-tests-fp8.log), one under
#                                      compute-sanitizer memcheck, mepi-bench --fp8 (fp8.log/.json),
#                                      python -m mepi.bench --fp8 beside torch._scaled_mm
#   scripts/device-run.sh grouped      grouped matmuls: the GPU cases (gpu-tests-grouped.log), three
#                                      of them under compute-sanitizer memcheck, racecheck and
#                                      synccheck, mepi-bench --grouped and --grouped-k
#                                      (grouped.log/.json, grouped-k.log/.json) and
#                                      python -m mepi.bench --grouped beside torch._grouped_mm
#   scripts/device-run.sh dist         distributed matmuls on 2 GPUs (nvidia-h200-x2): mpirun -np 2
#                                      mepi-dist-tests, examples/dist/tensor_parallel_mlp, the
#                                      Python package's tests_dist, mepi-bench --dist
#                                      (dist.log/.json), then python -m mepi.bench --dist beside
#                                      torch.distributed (pybench-dist.log/.json);
#                                      NVLink multicast stays off (NCCL_NVLS_ENABLE=0)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-$root/out}"
mkdir -p "$out"
work=/tmp/mepi-device
rm -rf "$work" && mkdir -p "$work"
xz -dc "$root/.bundle/mepi-bundle.tar.xz" | tar -C "$work" -xf - || { echo "no bundle" >&2; exit 1; }
bundle="$work/mepi"
export PATH="/usr/local/cuda/bin:$PATH"
# The commit the bundle was built from, which mepi-bench writes into its JSON.
MEPI_REVISION="$(cat "$bundle/REVISION")"
export MEPI_REVISION

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

# The suite in MEPI_GPU_TEST_SHARDS (8) shards at once, a kernel cache each (150-250 s on an
# H200 from a cold cache). Each shard writes its own log under $OUT as it goes, so that a call
# cut short by its time limit still brings back the cases that ran; they are joined into
# gpu-tests.log at the end, with the total.
run_gpu_tests() {
  local shards="${MEPI_GPU_TEST_SHARDS:-8}" status=0 pids=() i t0
  t0=$(date +%s)
  {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
    echo "$(date -u +%FT%TZ) bundle $MEPI_REVISION: mepi-gpu-tests --shard I/$shards at once"
  } > "$out/gpu-tests.log" 2>&1
  for ((i = 0; i < shards; i++)); do
    # MEPI_GPU_TESTS_ARGS: e.g. "--filter catalog" (a part of the suite).
    MEPI_CACHE_DIR="$work/cache-suite-$i" "$bundle/bin/mepi-gpu-tests" ${MEPI_GPU_TESTS_ARGS:-} \
      --shard "$i/$shards" > "$out/gpu-tests-shard-$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || status=1; done
  for ((i = 0; i < shards; i++)); do
    echo "== shard $i/$shards"
    cat "$out/gpu-tests-shard-$i.log" && rm "$out/gpu-tests-shard-$i.log"
  done >> "$out/gpu-tests.log"
  echo "suite: $(($(date +%s) - t0)) s" >> "$out/gpu-tests.log"
  grep -h "^[0-9]* passed, [0-9]* failed" "$out/gpu-tests.log" |
    awk '{p += $1; f += $3} END {print "total:", p, "passed,", f, "failed"}' |
    tee -a "$out/gpu-tests.log"
  grep -h "^FAIL" "$out/gpu-tests.log" | head -20
  return "$status"
}

run_examples() {
  local status=0
  : > "$out/examples.log"
  # A fresh kernel cache: each example's kernel is compiled here and kept for the SASS check.
  export MEPI_CACHE_DIR="$work/examples-cache"
  for example in linear_relu_bias linear_gelu_c silu_epilog external_epilog quantize_builder \
      column_reduction; do
    LD_LIBRARY_PATH="$bundle/lib" "$bundle/bin/$example" 2>&1 | tee -a "$out/examples.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
  # User epilogs in MLIR (text or builder) are inlined: their kernels' SASS calls no user
  # function. The external one (user_gelu from LTO-IR) keeps its call. ptxas's own subroutines
  # (__cuda_*: the slow path of IEEE division) are listed apart.
  {
    echo "== SASS of the examples' kernels (cuobjdump --dump-sass)"
    for entry in "$MEPI_CACHE_DIR"/*/; do
      local epilog sass calls hgmma functions internal
      epilog=$(grep -o 'func.call @[a-z_]*' "$entry/planned.mlir" | head -1)
      sass=$(cuobjdump --dump-sass "$entry/kernel.cubin")
      calls=$(grep -cE '\bCALL\.' <<< "$sass")
      hgmma=$(grep -c 'HGMMA' <<< "$sass")
      functions=$(grep -oE 'Function : [A-Za-z0-9_]+' <<< "$sass" | sed 's/Function : //' |
        grep -vE '^(mepi_matmul_|__cuda_)' | tr '\n' ' ')
      internal=$(grep -oE 'Function : __cuda_[A-Za-z0-9_]+' <<< "$sass" | sed 's/Function : //' |
        tr '\n' ' ')
      echo "${epilog:-built-in epilog}: CALL $calls, HGMMA $hgmma; functions called: ${functions:-none}; ptxas subroutines: ${internal:-none}"
    done
  } 2>&1 | tee -a "$out/examples.log"
  return "$status"
}

run_lto() {
  {
    nvcc -arch=lto_90a -dlto -ltoir -rdc=true "$bundle/inputs/user-scale.cu" \
      -o "$work/user-scale.ltoir" &&
    "$bundle/bin/mepi-opt" "$bundle/examples/bias_gelu.mlir" --mepi-lower-to-ptx \
      --mepi-link-cubin="arch=sm_90a output=$work/lto.cubin objects=$work/user-scale.ltoir" \
      -o /dev/null &&
    echo "lto: linked $(stat -c %s "$work/lto.cubin") bytes (LD_LIBRARY_PATH='${LD_LIBRARY_PATH:-}')"
  } 2>&1 | tee "$out/lto.log"
  return "${PIPESTATUS[0]}"
}

run_interop() {
  "$bundle/bin/mepi-cublaslt-interop" 2>&1 | tee "$out/interop.log"
  return "${PIPESTATUS[0]}"
}

run_bench() {
  "$bundle/bin/mepi-bench" --json "$out/dense.json" ${MEPI_BENCH_ARGS:-} 2>&1 | tee "$out/bench.log"
  return "${PIPESTATUS[0]}"
}

run_sweep() {
  "$bundle/bin/mepi-bench" --quick --sweep "${MEPI_SWEEP_SEED:-20261123}" --json "$out/sweep.json" \
    ${MEPI_BENCH_ARGS:-} 2>&1 | tee "$out/sweep.log"
  return "${PIPESTATUS[0]}"
}

run_python() {
  # The bundle carries the package (mepi/python) beside its libmepi.
  PYTHONPATH="$bundle/python" MEPI_LIBRARY="$bundle/lib/libmepi.so.0" \
    python3 -m pytest -q -p no:cacheprovider "$bundle/python/tests" "$bundle/python/tests_gpu" \
    2>&1 | tee "$out/python.log"
  return "${PIPESTATUS[0]}"
}

run_pybench() {
  PYTHONPATH="$bundle/python" MEPI_LIBRARY="$bundle/lib/libmepi.so.0" \
    python3 -m mepi.bench --json "$out/pybench.json" ${MEPI_BENCH_ARGS:-} 2>&1 |
    tee "$out/pybench.log"
  return "${PIPESTATUS[0]}"
}

run_f32() {
  "$bundle/bin/mepi-bench" --f32 --quick --json "$out/f32.json" ${MEPI_BENCH_ARGS:-} 2>&1 |
    tee "$out/f32.log"
  return "${PIPESTATUS[0]}"
}

run_tf32() {
  "$bundle/bin/mepi-bench" --tf32 --json "$out/tf32.json" ${MEPI_BENCH_ARGS:-} 2>&1 |
    tee "$out/tf32.log"
  return "${PIPESTATUS[0]}"
}

run_batched() {
  "$bundle/bin/mepi-bench" --batched --json "$out/batched.json" ${MEPI_BENCH_ARGS:-} 2>&1 |
    tee "$out/batched.log"
  return "${PIPESTATUS[0]}"
}

# The wgmma kernel's register/spill report, ptxas warnings (C7511/C7515: wgmma serialized) and
# the count of HGMMA instructions in its SASS.
run_sass() {
  {
    for input in "$root"/bench/kernels/*.mlir; do
      local name
      name="$(basename "$input" .mlir)"
      "$bundle/bin/mepi-opt" "$input" --mepi-lower-to-ptx="ptx-file=$work/$name.ptx" -o /dev/null &&
        ptxas -arch=sm_90a -v "$work/$name.ptx" -o "$work/$name.cubin" 2>&1 &&
        cuobjdump -sass "$work/$name.cubin" > "$out/$name.sass" &&
        echo "$name: HGMMA $(grep -c HGMMA "$out/$name.sass"), LDL/STL $(grep -cE 'LDL|STL' "$out/$name.sass"), CALL $(grep -c CALL "$out/$name.sass")"
      xz -f "$out/$name.sass"
    done
  } 2>&1 | tee "$out/sass.log"
  return "${PIPESTATUS[0]}"
}

run_grouped() {
  local status=0
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader \
    > "$out/gpu-tests-grouped.log" 2>&1
  "$bundle/bin/mepi-gpu-tests" --filter grouped 2>&1 | tee -a "$out/gpu-tests-grouped.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # A 128-row case (TMA-store and bounded slices) and the column groups (transposed problem).
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$bundle/bin/mepi-gpu-tests" \
      --filter "T=2051" --filter "columns (3-D x 2-D) bf16 S=6 M=77 K=136 N=1003 GELU" \
      --filter "along K bf16 M=129" \
      > "$out/compute-sanitizer-grouped-$tool.log" 2>&1 || status=1
    tail -2 "$out/compute-sanitizer-grouped-$tool.log"
  done
  "$bundle/bin/mepi-bench" --grouped --json "$out/grouped.json" 2>&1 | tee "$out/grouped.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  "$bundle/bin/mepi-bench" --grouped-k --json "$out/grouped-k.json" 2>&1 |
    tee "$out/grouped-k.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  PYTHONPATH="$bundle/python" MEPI_LIBRARY="$bundle/lib/libmepi.so.0" \
    python3 -m mepi.bench --grouped --json "$out/pybench-grouped.json" 2>&1 |
    tee "$out/pybench-grouped.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # And the host time of execute() from Python (issue 23's 10 µs).
  PYTHONPATH="$bundle/python" MEPI_LIBRARY="$bundle/lib/libmepi.so.0" \
    python3 -m mepi.bench --overhead --json "$out/pybench-overhead.json" 2>&1 |
    tee "$out/pybench-overhead.log"
  return "$status"
}

run_fp8() {
  local status=0
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader \
    > "$out/gpu-tests-fp8.log" 2>&1
  "$bundle/bin/mepi-gpu-tests" --filter "fp8 " 2>&1 | tee -a "$out/gpu-tests-fp8.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # A promoted kernel with an e4m3 D (saturating stores, amax) under memcheck.
  compute-sanitizer --tool memcheck --error-exitcode 9 "$bundle/bin/mepi-gpu-tests" \
    --filter "300x520x528" > "$out/compute-sanitizer-fp8-memcheck.log" 2>&1 || status=1
  tail -2 "$out/compute-sanitizer-fp8-memcheck.log"
  "$bundle/bin/mepi-bench" --fp8 --json "$out/fp8.json" 2>&1 | tee "$out/fp8.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # And from Python beside torch._scaled_mm.
  PYTHONPATH="$bundle/python" MEPI_LIBRARY="$bundle/lib/libmepi.so.0" \
    python3 -m mepi.bench --fp8 --json "$out/pybench-fp8.json" 2>&1 | tee "$out/pybench-fp8.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  return "$status"
}

run_dist() {
  local status=0
  export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  local mpi=(mpirun -np 2 --bind-to none -x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST
             -x NVSHMEM_DISABLE_NVLS -x MEPI_REVISION -x PATH) v
  for v in MEPI_DIST_SCHEDULE MEPI_DIST_PIECES MEPI_DIST_BANDS MEPI_DIST_MIRRORS MEPI_DIST_TAIL_PIECES \
           MEPI_DIST_TRACE NCCL_DEBUG; do [ -n "${!v:-}" ] && mpi+=(-x "$v"); done
  { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi topo -m; } \
    > "$out/dist.log" 2>&1
  # Each job has a time limit: a rank that dies inside a collective can leave the others
  # waiting for ever (a first Python run hung in ncclCommInitRank).
  # DIST_SKIP_TESTS / DIST_SKIP_BENCH / DIST_SKIP_PYBENCH leave parts out (one call's time).
  if [ -z "${DIST_SKIP_TESTS:-}" ]; then
    time timeout 420 "${mpi[@]}" "$bundle/bin/mepi-dist-tests" 2>&1 | tee -a "$out/dist.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    LD_LIBRARY_PATH="$bundle/lib" timeout 90 "${mpi[@]}" -x LD_LIBRARY_PATH \
      "$bundle/bin/tensor_parallel_mlp" 2>&1 | tee -a "$out/dist.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    PYTHONPATH="$bundle/python" MEPI_LIBRARY="$bundle/lib/libmepi.so.0" timeout 240 "${mpi[@]}" \
      -x PYTHONPATH -x MEPI_LIBRARY python3 -m pytest -q -p no:cacheprovider \
      "$bundle/python/tests_dist" 2>&1 | tee -a "$out/dist.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  fi
  [ -n "${DIST_SKIP_BENCH:-}" ] && return "$status"
  time timeout 300 "${mpi[@]}" "$bundle/bin/mepi-bench" --dist ${DIST_BENCH_ARGS:-} --json "$out/dist.json" 2>&1 |
    tee -a "$out/dist.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  [ -n "${DIST_SKIP_PYBENCH:-}" ] && return "$status"
  PYTHONPATH="$bundle/python" MEPI_LIBRARY="$bundle/lib/libmepi.so.0" timeout 300 "${mpi[@]}" \
    -x PYTHONPATH -x MEPI_LIBRARY python3 -m mepi.bench --dist ${DIST_PYBENCH_ARGS:-} \
    --json "$out/pybench-dist.json" 2>&1 | tee "$out/pybench-dist.log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  return "$status"
}

status=0
for set in "${@:-smoke}"; do
  case "$set" in
    smoke) run_smoke || status=1 ;;
    gpu-tests) run_gpu_tests || status=1 ;;
    examples) run_examples || status=1 ;;
    lto) run_lto || status=1 ;;
    interop) run_interop || status=1 ;;
    bench) run_bench || status=1 ;;
    batched) run_batched || status=1 ;;
    sweep) run_sweep || status=1 ;;
    tf32) run_tf32 || status=1 ;;
    f32) run_f32 || status=1 ;;
    python) run_python || status=1 ;;
    pybench) run_pybench || status=1 ;;
    sass) run_sass || status=1 ;;
    grouped) run_grouped || status=1 ;;
    fp8) run_fp8 || status=1 ;;
    dist) run_dist || status=1 ;;
    *) echo "device-run: unknown set '$set' (known: smoke, gpu-tests, examples, lto, interop, bench, batched, sweep, tf32, f32, python, pybench, sass, grouped, fp8, dist)" >&2
       status=2 ;;
  esac
done
echo "device-run: exit $status"
exit "$status"
