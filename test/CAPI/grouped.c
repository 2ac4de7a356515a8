/* The grouped matmul and segment GEMM C API without a GPU: plans, and each error as a message. */
// RUN: mepi-capi-grouped 2>&1 | FileCheck %s

#include "mepi-c/GroupedMatmul.h"

#include <stdint.h>
#include <stdio.h>

static void *fakePointer(void) { return (void *)(uintptr_t)0x7f0000000000ull; }

static void report(const char *what, MepiError error) {
  MepiStringRef message = mepiErrorGetMessage(error);
  printf("%s: %.*s\n", what, (int)message.length, message.data);
  mepiErrorDestroy(error);
}

int main(void) {
  int64_t xShape[] = {1000, 64}, wShape[] = {6, 96, 64}, offsShape[] = {6}, biasShape[] = {6, 96};
  MepiTensor x = {fakePointer(), 0, MEPI_DTYPE_BF16, 2, xShape, NULL};
  MepiTensor w = {fakePointer(), 0, MEPI_DTYPE_BF16, 3, wShape, NULL};
  MepiTensor offs = {fakePointer(), 0, MEPI_DTYPE_I32, 1, offsShape, NULL};
  MepiError error;

  // CHECK: float bounds: operand groups.bounds: expected a 1-D int32 or int64 tensor, got bf16
  MepiTensor floatOffs = offs;
  floatOffs.dtype = MEPI_DTYPE_BF16;
  MepiGroups bad = {&floatOffs, MEPI_GROUPS_ENDS, NULL};
  mepiGroupedMatmulCreate(&x, &w, &bad, 1.0f, false, true, NULL, &error);
  report("float bounds", error);

  // CHECK: unknown form: groups.form: unknown form 7
  MepiGroups unknown = {&offs, (MepiGroupForm)7, NULL};
  mepiGroupedMatmulCreate(&x, &w, &unknown, 1.0f, false, true, NULL, &error);
  report("unknown form", error);

  // x [1000, 64], w [6, 96, 64] (transposed: N-by-K matrices), 6 groups by their ends.
  MepiGroups groups = {&offs, MEPI_GROUPS_ENDS, NULL};
  MepiMatmul mm = mepiGroupedMatmulCreate(&x, &w, &groups, 1.0f, false, true, NULL, &error);
  // CHECK: created: 1
  printf("created: %d\n", !mepiMatmulIsNull(mm) && mepiErrorIsNull(error));

  // CHECK: dense bias: plan: {{.*}}epilog input 0 (col) to have shape [6, 96] or [96], got 'memref<1000xbf16>'
  int64_t rowsBias[] = {1000};
  MepiTensor denseBias = {fakePointer(), 0, MEPI_DTYPE_BF16, 1, rowsBias, NULL};
  if (mepiLogicalResultIsFailure(mepiMatmulPlan(mm, MEPI_EPILOG_GELU_BIAS, &denseBias, &error)))
    report("dense bias", error);

  // CHECK: per-group bias: ok #mepi.kernel_config<wgmma
  MepiTensor bias = {fakePointer(), 0, MEPI_DTYPE_BF16, 2, biasShape, NULL};
  MepiStringRef config;
  if (mepiLogicalResultIsSuccess(mepiMatmulPlan(mm, MEPI_EPILOG_GELU_BIAS, &bias, &error)) &&
      mepiLogicalResultIsSuccess(mepiMatmulGetKernelConfiguration(mm, &config, &error)))
    printf("per-group bias: ok %.*s\n", (int)config.length, config.data);
  else
    report("per-group bias", error);

  // CHECK: reset bounds: resetOperands: operand groups.bounds: expected shape [6], got [7]
  int64_t longer[] = {7};
  MepiTensor offs7 = {fakePointer(), 0, MEPI_DTYPE_I32, 1, longer, NULL};
  MepiGroups groups7 = {&offs7, MEPI_GROUPS_ENDS, NULL};
  MepiEpilogInputs inputs = {&bias, NULL, NULL};
  if (mepiLogicalResultIsFailure(
          mepiGroupedMatmulResetOperands(mm, &x, &w, &groups7, &inputs, &error)))
    report("reset bounds", error);
  // CHECK: reset: ok
  if (mepiLogicalResultIsSuccess(
          mepiGroupedMatmulResetOperands(mm, &x, &w, &groups, &inputs, &error)))
    printf("reset: ok\n");
  else
    report("reset", error);
  mepiMatmulDestroy(mm);

  // FlashInfer's SegmentGEMMWrapper.run.
  MepiSegmentGemm seg = mepiSegmentGemmCreate(NULL, &error);
  int64_t indptrShape[] = {7};
  MepiTensor indptr = {fakePointer(), 0, MEPI_DTYPE_I64, 1, indptrShape, NULL};
  MepiTensor lens = {fakePointer(), 0, MEPI_DTYPE_I64, 1, offsShape, NULL};
  MepiTensor y;
  // CHECK: both: SegmentGEMM.run: expected exactly one of seg_lens and seg_indptr, got both
  mepiSegmentGemmRun(seg, &x, &w, 6, true, &lens, &indptr, NULL, NULL, &y, &error);
  report("both", error);
  // CHECK: batch size: SegmentGEMM.run: seg_indptr: expected shape [6] (batch_size + 1), got [7]
  mepiSegmentGemmRun(seg, &x, &w, 5, true, NULL, &indptr, NULL, NULL, &y, &error);
  report("batch size", error);
  // CHECK: weights: SegmentGEMM.run: weights: expected batch_size (5) matrices without weight_indices, got shape [6, 96, 64]
  int64_t fiveShape[] = {5};
  MepiTensor lens5 = {fakePointer(), 0, MEPI_DTYPE_I64, 1, fiveShape, NULL};
  mepiSegmentGemmRun(seg, &x, &w, 5, true, &lens5, NULL, NULL, NULL, &y, &error);
  report("weights", error);
  // Valid arguments plan, then fail to launch without a GPU, with an error and no crash.
  // CHECK: no gpu: {{.*}}
  mepiSegmentGemmRun(seg, &x, &w, 6, true, NULL, &indptr, NULL, NULL, &y, &error);
  report("no gpu", error);
  mepiSegmentGemmDestroy(seg);
  // CHECK: null handle: null MepiSegmentGemm handle
  MepiSegmentGemm none = {NULL};
  mepiSegmentGemmRun(none, &x, &w, 6, true, NULL, &indptr, NULL, NULL, &y, &error);
  report("null handle", error);
  return 0;
}
