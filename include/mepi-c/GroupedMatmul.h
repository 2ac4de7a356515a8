/* mepi C API: grouped matmuls (mixture-of-experts, segment GEMM; see mepi/GroupedMatmul.h and
 * mepi/SegmentGemm.h). A grouped matmul is a MepiMatmul: plan, execute, aux outputs, kernel
 * configuration, release and destroy are mepiMatmul* calls on its handle. */
#ifndef MEPI_C_GROUPEDMATMUL_H
#define MEPI_C_GROUPEDMATMUL_H

#include "mepi-c/Matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the bounds give the groups' rows (mepi::GroupForm). */
typedef enum {
  MEPI_GROUPS_ENDS = 0,    /* [S] cumulative ends, no leading 0 (torch._grouped_mm's offs) */
  MEPI_GROUPS_INDPTR = 1,  /* [S + 1] starts, then the last end (FlashInfer's seg_indptr) */
  MEPI_GROUPS_LENGTHS = 2, /* [S] consecutive rows from 0 (FlashInfer's seg_lens) */
  MEPI_GROUPS_MASKED = 3   /* [S] rows counted in each group's R (DeepGEMM's masked_m; A is
                              [S, R, K] and D [S, R, N]) */
} MepiGroupForm;

/** The groups: bounds (1-D i32 or i64, on the device), their form, and optionally which
 *  matrix of B each group multiplies (weightIndices, 1-D i32 or i64 [S]; NULL: matrix g). */
typedef struct {
  const MepiTensor *bounds;
  MepiGroupForm form;
  const MepiTensor *weightIndices;
} MepiGroups;

/** D [T, N] = epilog(alpha * op(A) op(B[w(g)])) per group, A [T, K] (or [K, T] transposed),
 *  B [W, K, N] (or [W, N, K] transposed); see mepi::GroupedMatmul. `options` may be NULL.
 *  Returns a MepiMatmul handle (null on failure, with `error` set). */
MepiMatmul mepiGroupedMatmulCreate(const MepiTensor *a, const MepiTensor *b,
                                   const MepiGroups *groups, float alpha, bool transposeA,
                                   bool transposeB, const MepiMatmulOptions *options,
                                   MepiError *error);

/** Replaces a, b, the groups' tensors and the epilog inputs (`inputs` may be NULL) with others
 *  of the same layouts. */
MepiLogicalResult mepiGroupedMatmulResetOperands(MepiMatmul matmul, const MepiTensor *a,
                                                 const MepiTensor *b, const MepiGroups *groups,
                                                 const MepiEpilogInputs *inputs,
                                                 MepiError *error);

/** FlashInfer's SegmentGEMMWrapper (mepi::SegmentGEMM): plans each distinct layout once. */
typedef struct {
  void *ptr;
} MepiSegmentGemm;

/** `options` may be NULL. Owned by the caller: mepiSegmentGemmDestroy. */
MepiSegmentGemm mepiSegmentGemmCreate(const MepiMatmulOptions *options, MepiError *error);

/** SegmentGEMMWrapper.run(x, weights, batch_size, weight_column_major, seg_lens, seg_indptr,
 *  weight_indices): exactly one of segLens and segIndptr; weightIndices may be NULL. Writes y
 *  [T, N] (owned by `seg`, valid until its next run with the same layouts) to `y`. */
MepiLogicalResult mepiSegmentGemmRun(MepiSegmentGemm seg, const MepiTensor *x,
                                     const MepiTensor *weights, int64_t batchSize,
                                     bool weightColumnMajor, const MepiTensor *segLens,
                                     const MepiTensor *segIndptr,
                                     const MepiTensor *weightIndices, MepiStream stream,
                                     MepiTensor *y, MepiError *error);

void mepiSegmentGemmDestroy(MepiSegmentGemm seg);

#ifdef __cplusplus
}
#endif

#endif /* MEPI_C_GROUPEDMATMUL_H */
