#!/usr/bin/env bash
# Configures a sanitized build of mepi: scripts/configure-sanitized.sh asan|tsan DIR
#   asan: clang, AddressSanitizer + UndefinedBehaviorSanitizer, and libFuzzer's coverage
#         (MEPI_FUZZ=ON): the test command's ASan suites and scripts/fuzz.sh share this build.
#   tsan: g++, ThreadSanitizer.
# Both compile at -O1 with line tables only: sanitizer reports keep file and line, and the
# build takes far less time and cache than full debug information over MLIR's headers.
# Does nothing when DIR is configured already.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kind=$1
dir=$2
[ -f "$dir/build.ninja" ] && exit 0
common=(-G Ninja -S "$root" -B "$dir" -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit -DCMAKE_BUILD_TYPE=RelWithDebInfo)
case "$kind" in
  asan)
    # LLVM's own sanitized build (HandleLLVMOptions): -fsanitize=address, LLVM's UBSan set (no
    # vptr or function checks, nothing recovers), frame pointers, libFuzzer's coverage. clang
    # links the runtime into executables only, so shared libraries keep its symbols undefined
    # (LLVM then drops -z defs).
    opt="-O1 -gline-tables-only -DNDEBUG"
    cmake "${common[@]}" -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
      -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ -DMEPI_FUZZ=ON \
      "-DLLVM_USE_SANITIZER=Address;Undefined" -DLLVM_USE_SANITIZE_COVERAGE=ON \
      "-DLLVM_UBSAN_FLAGS=-fsanitize=undefined -fno-sanitize=vptr,function -fno-sanitize-recover=all" \
      "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$opt" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt" > /dev/null ;;
  tsan)
    flags="-fsanitize=thread -fno-omit-frame-pointer"
    opt="-O1 -g1 -DNDEBUG"
    cmake "${common[@]}" "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$opt" \
      "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags" > /dev/null ;;
  *) echo "configure-sanitized.sh: the kind is asan or tsan, got '$kind'" >&2; exit 2 ;;
esac
