// The C++ API's SegmentGEMM (mepi/SegmentGemm.h): FlashInfer's arguments checked and turned
// into a grouped matmul, planned once per distinct layout.
#include "mepi/SegmentGemm.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mepi;
using namespace mepi::api;

namespace {
/// A tensor's dtype, shape, strides and whether its address allows TMA (16-byte aligned): what
/// a planned kernel depends on.
std::string layoutKey(const Tensor &t) {
  return std::to_string(int(t.dtype)) + dims(t.shape) + dims(t.strides) +
         (commonAlignment(t.data, t.data) >= 16 ? "a" : "u") + ";";
}

void expectLength(const Tensor &t, const char *name, int64_t want, const char *meaning) {
  if (t.shape.size() != 1 || t.shape[0] != want)
    fail(llvm::formatv("SegmentGEMM.run: {0}: expected shape [{1}] ({2}), got {3}", name, want,
                       meaning, dims(t.shape)));
}
} // namespace

SegmentGEMM::SegmentGEMM(Options options) : options(std::move(options)) {}

Tensor SegmentGEMM::run(const Tensor &x, const Tensor &weights, int64_t batchSize,
                        bool weightColumnMajor, const std::optional<Tensor> &segLens,
                        const std::optional<Tensor> &segIndptr,
                        const std::optional<Tensor> &weightIndices, CUstream stream) {
  if (segLens.has_value() == segIndptr.has_value())
    fail("SegmentGEMM.run: expected exactly one of seg_lens and seg_indptr, got " +
         std::string(segLens ? "both" : "neither"));
  if (batchSize < 1)
    fail(llvm::formatv("SegmentGEMM.run: batch_size: expected at least 1, got {0}", batchSize));
  Groups groups;
  groups.form = segLens ? GroupForm::Lengths : GroupForm::Indptr;
  groups.bounds = segLens ? *segLens : *segIndptr;
  expectLength(groups.bounds, segLens ? "seg_lens" : "seg_indptr",
               segLens ? batchSize : batchSize + 1,
               segLens ? "batch_size" : "batch_size + 1");
  if (weightIndices)
    expectLength(*weightIndices, "weight_indices", batchSize, "batch_size");
  else if (weights.shape.size() == 3 && weights.shape[0] != batchSize)
    fail(llvm::formatv("SegmentGEMM.run: weights: expected batch_size ({0}) matrices without "
                       "weight_indices, got shape {1}",
                       batchSize, dims(weights.shape)));
  groups.weightIndices = weightIndices;
  std::string key = layoutKey(x) + layoutKey(weights) + layoutKey(groups.bounds) +
                    (weightIndices ? layoutKey(*weightIndices) : "-;") +
                    (segLens ? "lens" : "indptr") + (weightColumnMajor ? "T" : "N");
  auto found = plans.find(key);
  if (found == plans.end()) {
    auto planned = std::make_unique<GroupedMatmul>(x, weights, groups, 1.0f,
                                                   Qualifiers{false, weightColumnMajor}, options);
    planned->plan();
    if (plans.size() == kMaxPlans) { // the least recently run goes, with its D
      auto oldest = std::min_element(plans.begin(), plans.end(), [](auto &p, auto &q) {
        return p.second.second < q.second.second;
      });
      oldest->second.first->free();
      plans.erase(oldest);
    }
    found = plans.emplace(key, std::make_pair(std::move(planned), uint64_t(0))).first;
  } else {
    found->second.first->resetOperands(x, weights, groups);
  }
  found->second.second = ++runs;
  return found->second.first->execute(stream);
}

void SegmentGEMM::free() {
  for (auto &[key, planned] : plans)
    planned.first->free();
  plans.clear();
}
