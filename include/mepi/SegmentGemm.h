// FlashInfer's segment GEMM over mepi's grouped matmul: SegmentGEMMWrapper.run's arguments and
// meaning, with each distinct problem planned once and its kernel reused by later runs.
//
//   mepi::SegmentGEMM seg;
//   mepi::Tensor y = seg.run(x, w, batchSize, /*weightColumnMajor=*/true,
//                            /*segLens=*/std::nullopt, segIndptr, weightIndices, stream);
#ifndef MEPI_SEGMENTGEMM_H
#define MEPI_SEGMENTGEMM_H

#include "mepi/GroupedMatmul.h"

#include <map>
#include <memory>
#include <string>

namespace mepi {

/// One thread at a time (as Matmul). The plans are keyed by the operands' layouts, T included
/// (a grouped kernel is compiled for its rows): the kMaxPlans most recently used are kept, each
/// with its D, and the least recently used freed past that.
class SegmentGEMM {
public:
  static constexpr size_t kMaxPlans = 16;

  explicit SegmentGEMM(Options options = {});
  /// y[rows of segment i] = x[rows of segment i] * W_i for x [T, K] and weights [W, N, K]
  /// (weightColumnMajor: W_i = weights[w]^T) or [W, K, N], w = weightIndices[i] (Int64 or Int32
  /// [batchSize]) or i. The segments are given by exactly one of segLens (Int64 or Int32
  /// [batchSize], consecutive from row 0) and segIndptr ([batchSize + 1], segment i is rows
  /// [segIndptr[i], segIndptr[i + 1])), read on the device only. Returns y [T, N] in x's dtype,
  /// owned by this object, rewritten by the next run of the same layouts and freed with its
  /// plan (kMaxPlans other layouts later). Rows in no segment are not written.
  Tensor run(const Tensor &x, const Tensor &weights, int64_t batchSize, bool weightColumnMajor,
             const std::optional<Tensor> &segLens, const std::optional<Tensor> &segIndptr,
             const std::optional<Tensor> &weightIndices = std::nullopt,
             CUstream stream = nullptr);
  /// Releases every planned problem's kernel and outputs.
  void free();

private:
  Options options;
  /// The planned grouped matmuls by the layouts of their operands, and when each was last run.
  std::map<std::string, std::pair<std::unique_ptr<GroupedMatmul>, uint64_t>> plans;
  uint64_t runs = 0;
};

} // namespace mepi

#endif // MEPI_SEGMENTGEMM_H
