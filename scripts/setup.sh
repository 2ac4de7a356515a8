#!/usr/bin/env bash
# Installs what building and testing mepi needs on Debian 12 (skips what is already there).
set -euo pipefail

packages=(cmake ninja-build g++ ccache lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev libgtest-dev
          mlir-22-tools zlib1g-dev libzstd-dev xz-utils python3 python3-pytest python3-numpy
          clang-22 libclang-rt-22-dev  # clang, its ASan and libFuzzer: build-asan, scripts/fuzz.sh
          libopenmpi-dev openmpi-bin)  # mpirun: the distributed tests and mepi-bench --dist
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The CUDA toolkit (ptxas, libdevice, and later nvJitLink) is not a Debian package here: it is
# expected in /usr/local/cuda (or $CUDA_HOME).
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -x "$cuda/bin/ptxas" ] || [ ! -f "$cuda/nvvm/libdevice/libdevice.10.bc" ]; then
  echo "setup: error: CUDA toolkit not found at $cuda (need bin/ptxas and nvvm/libdevice)" >&2
  exit 1
fi
echo "setup: ok (LLVM/MLIR $(/usr/lib/llvm-22/bin/llvm-config --version), CUDA at $cuda)"
