/* The C epilog builder without a GPU: a quantizing epilog planned into a kernel, and the first
 * misuse reported by the builder and by plan (nothing launches). */
// RUN: mepi-capi-epilog-builder 2>&1 | FileCheck %s

#include "mepi-c/EpilogBuilder.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static MepiStringRef ref(const char *s) {
  MepiStringRef r = {s, strlen(s)};
  return r;
}

static void report(const char *what, MepiError error) {
  if (mepiErrorIsNull(error)) {
    printf("%s: ok\n", what);
    return;
  }
  MepiStringRef message = mepiErrorGetMessage(error);
  printf("%s: %.*s\n", what, (int)message.length, message.data);
  mepiErrorDestroy(error);
}

int main(void) {
  void *fake = (void *)(uintptr_t)0x7f0000000000ull;
  int64_t aShape[] = {33, 64}, bShape[] = {64, 47}, scaleShape[] = {47};
  MepiTensor a = {fake, 0, MEPI_DTYPE_BF16, 2, aShape, NULL};
  MepiTensor b = {fake, 0, MEPI_DTYPE_BF16, 2, bShape, NULL};
  MepiTensor scale = {fake, 0, MEPI_DTYPE_F32, 1, scaleShape, NULL};
  MepiError error;
  MepiMatmul mm = mepiMatmulCreate(&a, &b, NULL, 1.0f, NULL, false, false, &error);

  /* q = clamp(round(acc * scale[col]), -127, 127); row_amax = max |acc * scale[col]| per row */
  MepiEpilogBuilder e = mepiEpilogBuilderCreate();
  MepiEpilogValue scaled =
      mepiEpilogBuilderBinary(e, MEPI_BINARY_MUL, mepiEpilogBuilderAccumulator(e),
                              mepiEpilogBuilderInput(e, ref("scale"), MEPI_INPUT_COL));
  MepiEpilogValue q = mepiEpilogBuilderUnary(e, MEPI_UNARY_ROUND, scaled);
  q = mepiEpilogBuilderBinary(e, MEPI_BINARY_MAX, q, mepiEpilogBuilderConstant(e, -127));
  q = mepiEpilogBuilderBinary(e, MEPI_BINARY_MIN, q, mepiEpilogBuilderConstant(e, 127));
  mepiEpilogBuilderStore(e, q);
  mepiEpilogBuilderReduction(e, ref("row_amax"), mepiEpilogBuilderUnary(e, MEPI_UNARY_ABS, scaled),
                             MEPI_REDUCE_ROW, MEPI_COMBINE_MAX, MEPI_DTYPE_F32);
  // CHECK: builder: ok
  report("builder", mepiEpilogBuilderGetError(e));
  MepiStringRef names[] = {ref("scale")};
  // CHECK-NEXT: plan: ok
  mepiMatmulPlanEpilogBuilder(mm, e, names, &scale, 1, &error);
  report("plan", error);
  // CHECK-NEXT: missing input: plan: epilog input 'scale' is read by the epilog builder but not given
  mepiMatmulPlanEpilogBuilder(mm, e, NULL, NULL, 0, &error);
  report("missing input", error);
  mepiEpilogBuilderDestroy(e);

  /* A type error is kept in the builder; later nodes on the invalid value fail quietly. */
  MepiEpilogBuilder bad = mepiEpilogBuilderCreate();
  MepiEpilogValue sum = mepiEpilogBuilderBinary(bad, MEPI_BINARY_ADD,
                                                mepiEpilogBuilderAccumulator(bad),
                                                mepiEpilogBuilderRow(bad));
  // CHECK-NEXT: invalid value: 1
  printf("invalid value: %d\n", sum == MEPI_EPILOG_VALUE_INVALID);
  mepiEpilogBuilderStore(bad, mepiEpilogBuilderUnary(bad, MEPI_UNARY_EXP, sum));
  // CHECK-NEXT: bad builder: epilog builder: add: expected operands of one type, got f32 and index
  report("bad builder", mepiEpilogBuilderGetError(bad));
  // CHECK-NEXT: bad plan: epilog builder: add: expected operands of one type, got f32 and index
  mepiMatmulPlanEpilogBuilder(mm, bad, NULL, NULL, 0, &error);
  report("bad plan", error);
  mepiEpilogBuilderDestroy(bad);
  /* MLIR text with an output besides D: the function must return it too. */
  const char *text =
      "func.func @f(%acc: f32, %row: index, %col: index) -> (bf16, f32) {\n"
      "  %t = arith.truncf %acc : f32 to bf16\n"
      "  return %t, %acc : bf16, f32\n"
      "}\n";
  MepiUserEpilogOutput colSum = {ref("col_sum"), MEPI_OUTPUT_COL_REDUCTION, MEPI_DTYPE_F32,
                                 MEPI_COMBINE_ADD};
  // CHECK-NEXT: with outputs: ok
  mepiMatmulPlanUserEpilogWithOutputs(mm, ref(text), ref("f"), NULL, NULL, 0, NULL, 0, &colSum, 1,
                                      NULL, &error);
  report("with outputs", error);
  MepiUserEpilogOutput two[] = {colSum, colSum};
  two[1].key = ref("col_max");
  two[1].combiner = MEPI_COMBINE_MAX;
  // CHECK-NEXT: one output too many: plan: user epilog @f: expected type (f32, index, index) -> (bf16, f32, f32) for this problem, got (f32, index, index) -> (bf16, f32)
  mepiMatmulPlanUserEpilogWithOutputs(mm, ref(text), ref("f"), NULL, NULL, 0, NULL, 0, two, 2,
                                      NULL, &error);
  report("one output too many", error);
  mepiMatmulDestroy(mm);
  return 0;
}
