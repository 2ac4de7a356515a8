#!/usr/bin/env bash
# Packs what the device machine needs into one compressed file, .bundle/mepi-bundle.tar.xz:
# mepi-opt and libmepi linked against static LLVM (they need only libc, libstdc++, libz, libzstd
# and the toolkit's libnvJitLink there), the GPU suite, the examples and the device scripts. Usage: scripts/bundle.sh [static-build-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-static}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" "$build" -DMEPI_STATIC_LLVM=ON

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/mepi/bin" "$stage/mepi/lib" "$stage/mepi/scripts"
for tool in mepi-opt mepi-gpu-tests mepi-cublaslt-interop mepi-bench mepi-dist-tests; do
  cp "$build/bin/$tool" "$stage/mepi/bin/"
  strip --strip-debug "$stage/mepi/bin/$tool" # keep symbols for stack traces
done
cp "$build/lib/libmepi.so.0" "$stage/mepi/lib/" # found through the binaries' $ORIGIN/../lib
# The examples, built against the install tree as a user would.
rm -rf "$build/install" "$build/examples"
cmake --install "$build" --prefix "$build/install" > /dev/null
cmake -G Ninja -S "$root/examples" -B "$build/examples" -DCMAKE_PREFIX_PATH="$build/install" \
  > /dev/null
ninja -C "$build/examples" > /dev/null
cp "$build/examples/linear_relu_bias" "$build/examples/linear_gelu_c" "$build/examples/silu_epilog" \
  "$build/examples/external_epilog" "$build/examples/user_gelu.ltoir" \
  "$build/examples/quantize_builder" "$build/examples/column_reduction" \
  "$build/examples/tensor_parallel_mlp" \
  "$build/bin/mepi-bench-bias-gelu.cubin" "$stage/mepi/bin/"
strip --strip-debug "$stage/mepi/lib/libmepi.so.0"
cp -r "$root/examples" "$stage/mepi/"
mkdir -p "$stage/mepi/inputs"
cp "$root/test/Target/Inputs/user-scale.cu" "$root/test/Target/Inputs/user-gelu.cu" \
  "$root/test/Target/Inputs/user-affine.cu" "$stage/mepi/inputs/"
cp "$root/scripts/demo.sh" "$root/scripts/device-run.sh" "$stage/mepi/scripts/"
mkdir -p "$stage/mepi/python"
cp -r "$root/python/mepi" "$root/python/tests" "$root/python/tests_gpu" "$root/python/tests_dist" \
  "$stage/mepi/python/"
cp "$root/README.md" "$stage/mepi/" # python/tests_gpu/test_readme.py runs its Python examples
find "$stage/mepi/python" -name __pycache__ -prune -exec rm -rf {} +
git -C "$root" rev-parse HEAD > "$stage/mepi/REVISION" 2>/dev/null || echo unknown > "$stage/mepi/REVISION"

mkdir -p "$root/.bundle"
out="$root/.bundle/mepi-bundle.tar.xz"
tar -C "$stage" -cf - mepi | xz -T0 -6 > "$out"
size=$(stat -c %s "$out")
echo "bundle: $out ($((size / 1024 / 1024)) MiB; needs: $(ldd "$stage/mepi/bin/mepi-gpu-tests" |
  awk '{print $1}' | grep -vE 'linux-vdso|ld-linux' | tr '\n' ' '))"
limit=$((48 * 1024 * 1024))
[ "$size" -le "$limit" ] || { echo "bundle: error: larger than 48 MiB" >&2; exit 1; }
