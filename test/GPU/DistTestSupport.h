// What the distributed matmul's GPU tests share (mepi-dist-tests): global bf16 operands made
// alike on every rank from a seed, a rank's part of them under a distribution, and uploads.
#ifndef MEPI_TEST_GPU_DISTTESTSUPPORT_H
#define MEPI_TEST_GPU_DISTTESTSUPPORT_H

#include "GpuTestSupport.h"

#include "mepi/Distributed.h"

#include <random>
#include <string>

namespace disttest {
using gputest::cu;
using gputest::toBF16;
using mepi::dist::Distribution;

/// The term the tests' user epilogs add to show their indices: (row % 7 - col % 5) / 4, an
/// MLIR function they call. An index offset by a GEMM's block of rows or columns shows as a
/// step of 0.25 or more.
inline const std::string kIndexTermMlir = R"(
func.func @index_term(%row: index, %col: index) -> f32 {
  %c7 = arith.constant 7 : index
  %c5 = arith.constant 5 : index
  %rm = arith.remui %row, %c7 : index
  %cm = arith.remui %col, %c5 : index
  %ri = arith.index_cast %rm : index to i32
  %ci = arith.index_cast %cm : index to i32
  %rf = arith.sitofp %ri : i32 to f32
  %cf = arith.sitofp %ci : i32 to f32
  %d = arith.subf %rf, %cf : f32
  %q = arith.constant 0.25 : f32
  %o = arith.mulf %d, %q : f32
  return %o : f32
}
)";
inline double indexTerm(int64_t row, int64_t col) { return 0.25 * double(row % 7 - col % 5); }

/// The driver the tests run on (set by main()).
inline const mepi::runtime::CudaDriver *driver = nullptr;

/// A global matrix [rows, cols] of bf16 values in [-1, 1] from `seed` (the same on every rank).
inline std::vector<uint16_t> randomMatrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<uint16_t> out(rows * cols);
  for (auto &v : out)
    v = toBF16(u(gen));
  return out;
}

/// The global index of local index `l` along stored dimension `dim` (0: rows, 1: columns) of
/// a global `global` matrix under `dist` on `rank`.
inline int64_t globalIndex(const Distribution &dist, int dim, int rank, int ranks,
                    const std::vector<int64_t> &global, int64_t l) {
  using K = Distribution::Kind;
  if (dist.kind == K::BlockCyclic) {
    int procs = dim == 0 ? dist.grid.rows : dist.grid.cols;
    int coord = dim == 0 ? rank / dist.grid.cols : rank % dist.grid.cols;
    int64_t block = dim == 0 ? dist.blockRows : dist.blockCols;
    return (l / block * procs + coord) * block + l % block;
  }
  if ((dist.kind == K::SlabX && dim == 0) || (dist.kind == K::SlabY && dim == 1))
    for (int q = 0; q < rank; ++q)
      l += dist.shape(q, ranks, global)[dim];
  return l;
}

/// Rank `rank`'s part of a stored global matrix under `dist`.
inline std::vector<uint16_t> localPart(const std::vector<uint16_t> &global, int64_t rows, int64_t cols,
                                const Distribution &dist, int rank, int ranks,
                                std::vector<int64_t> &shape) {
  shape = dist.shape(rank, ranks, {rows, cols});
  std::vector<uint16_t> out(shape[0] * shape[1]);
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      out[i * shape[1] + j] = global[globalIndex(dist, 0, rank, ranks, {rows, cols}, i) * cols +
                                     globalIndex(dist, 1, rank, ranks, {rows, cols}, j)];
  return out;
}

/// A copy of `host` on the current device (bf16 values, or bytes of a ReLU mask).
template <typename T> CUdeviceptr upload(const std::vector<T> &host) {
  CUdeviceptr p = 0;
  size_t bytes = host.size() * sizeof(T);
  cu(driver->cuMemAlloc(&p, std::max<size_t>(bytes, 2)), "cuMemAlloc");
  if (bytes)
    cu(driver->cuMemcpyHtoD(p, host.data(), bytes), "cuMemcpyHtoD");
  return p;
}

/// This rank's values of a global vector indexed by D's rows (a bias follows its rows), on the
/// device: value `globalRow(i)` for each of this rank's `rows`.
template <typename F>
CUdeviceptr uploadRowValues(const std::vector<uint16_t> &global, int64_t rows, F globalRow) {
  std::vector<uint16_t> mine(rows);
  for (int64_t i = 0; i < rows; ++i)
    mine[i] = global[globalRow(i)];
  return upload(mine);
}

/// The distributed options a case asks for: pieces, remote stores, mirrored pieces.
inline mepi::dist::Options caseOptions(int pieces, bool remoteStores, int mirroredPieces) {
  mepi::dist::Options options;
  options.pieces = pieces;
  options.remoteStores = remoteStores;
  options.mirroredPieces = mirroredPieces;
  return options;
}

inline mepi::Tensor tensor(CUdeviceptr p, int device, std::vector<int64_t> shape) {
  mepi::Tensor t;
  t.data = reinterpret_cast<void *>(p);
  t.device = device;
  t.dtype = mepi::DType::BFloat16;
  t.shape = shape;
  return t;
}

} // namespace disttest

#endif // MEPI_TEST_GPU_DISTTESTSUPPORT_H
