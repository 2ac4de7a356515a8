// The C API over mepi's grouped matmul (MepiMatmul handles) and SegmentGEMM.
#include "CAPI/Wrap.h"

#include "mepi-c/GroupedMatmul.h"
#include "mepi/SegmentGemm.h"

namespace {
using namespace mepi::capi;

struct CSegmentGemm {
  mepi::SegmentGEMM seg;
  std::vector<int64_t> resultShape, resultStrides; // of the last y handed out
};

mepi::Groups groupsOf(const MepiGroups *groups) {
  if (!groups || !groups->bounds)
    throw mepi::Error("operand groups.bounds: expected a tensor, got NULL");
  int form = rawValue(groups->form);
  if (form < MEPI_GROUPS_ENDS || form > MEPI_GROUPS_MASKED)
    throw mepi::Error("groups.form: unknown form " + std::to_string(form));
  mepi::Groups result;
  result.bounds = *tensorOf(groups->bounds, "groups.bounds");
  result.form = static_cast<mepi::GroupForm>(form);
  result.weightIndices = tensorOf(groups->weightIndices, "groups.weightIndices");
  return result;
}
} // namespace

extern "C" {

MepiMatmul mepiGroupedMatmulCreate(const MepiTensor *a, const MepiTensor *b,
                                   const MepiGroups *groups, float alpha, bool transposeA,
                                   bool transposeB, const MepiMatmulOptions *options,
                                   MepiError *error) {
  CMatmul *handle = nullptr;
  guardedCall(error, [&] {
    expectOperands(a, b, "a", "b");
    handle = CMatmul::grouped(*tensorOf(a, "a"), *tensorOf(b, "b"), groupsOf(groups), alpha,
                              {transposeA, transposeB}, optionsOf(options));
  });
  return {handle};
}

MepiLogicalResult mepiGroupedMatmulResetOperands(MepiMatmul matmul, const MepiTensor *a,
                                                 const MepiTensor *b, const MepiGroups *groups,
                                                 const MepiEpilogInputs *inputs,
                                                 MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    expectOperands(a, b, "a", "b", "resetOperands: ");
    m.resetGroupedOperands(*tensorOf(a, "a"), *tensorOf(b, "b"), groupsOf(groups),
                           inputsOf(inputs));
  });
}

MepiSegmentGemm mepiSegmentGemmCreate(const MepiMatmulOptions *options, MepiError *error) {
  CSegmentGemm *handle = nullptr;
  guardedCall(error, [&] { handle = new CSegmentGemm{mepi::SegmentGEMM(optionsOf(options))}; });
  return {handle};
}

MepiLogicalResult mepiSegmentGemmRun(MepiSegmentGemm seg, const MepiTensor *x,
                                     const MepiTensor *weights, int64_t batchSize,
                                     bool weightColumnMajor, const MepiTensor *segLens,
                                     const MepiTensor *segIndptr,
                                     const MepiTensor *weightIndices, MepiStream stream,
                                     MepiTensor *y, MepiError *error) {
  return guardedCall(error, [&] {
    if (!seg.ptr)
      throw mepi::Error("null MepiSegmentGemm handle");
    expectOperands(x, weights, "x", "weights");
    auto &s = *static_cast<CSegmentGemm *>(seg.ptr);
    mepi::Tensor result = s.seg.run(*tensorOf(x, "x"), *tensorOf(weights, "weights"), batchSize,
                                    weightColumnMajor, tensorOf(segLens, "seg_lens"),
                                    tensorOf(segIndptr, "seg_indptr"),
                                    tensorOf(weightIndices, "weight_indices"), stream);
    if (y)
      describe(result, s.resultShape, s.resultStrides, y);
  });
}

void mepiSegmentGemmDestroy(MepiSegmentGemm seg) { delete static_cast<CSegmentGemm *>(seg.ptr); }

} // extern "C"
