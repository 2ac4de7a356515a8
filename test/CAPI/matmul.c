/* The C API without a GPU: version, handles, and each error as a message (nothing launches). */
// RUN: mepi-capi-matmul 2>&1 | FileCheck %s

#include "mepi-c/Matmul.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void *fakePointer(void) { return (void *)(uintptr_t)0x7f0000000000ull; }

/* Whether `r` failed; frees the error the call left. */
static int failedAndFreed(MepiLogicalResult r, MepiError *error) {
  int failed = mepiLogicalResultIsFailure(r);
  mepiErrorDestroy(*error);
  error->ptr = NULL;
  return failed;
}

/* A log callback printing the messages about plans and the kernel cache. */
static void printMessage(int level, MepiStringRef message, void *userData) {
  (void)userData;
  if ((message.length >= 5 && strncmp(message.data, "plan:", 5) == 0) ||
      (message.length >= 13 && strncmp(message.data, "kernel cache:", 13) == 0))
    printf("log: %d %.*s\n", level, (int)message.length, message.data);
}

static void report(const char *what, MepiError error) {
  MepiStringRef message = mepiErrorGetMessage(error);
  printf("%s: %.*s\n", what, (int)message.length, message.data);
  mepiErrorDestroy(error);
}

static const char *const kSilu =
    "func.func @silu(%acc: f32, %row: index, %col: index) -> f16 {\n"
    "  %one = arith.constant 1.0 : f32\n  %n = arith.negf %acc : f32\n"
    "  %e = math.exp %n : f32\n  %d = arith.addf %one, %e : f32\n"
    "  %y = arith.divf %acc, %d : f32\n  %t = arith.truncf %y : f32 to f16\n"
    "  return %t : f16\n}\n";

// The output's order is the order of main's calls; main prints the version first.
// CHECK: api version 7

/* Creation's errors: K that does not agree (with `badB`), a null pointer, C without beta. */
static void createErrors(MepiTensor a, MepiTensor badB, MepiTensor b) {
  MepiError error;

  // CHECK: create: invalid matmul: {{.*}}expected op(a) and op(b) to agree on K, got 16 and 12
  MepiMatmul bad = mepiMatmulCreate(&a, &badB, NULL, 1.0f, NULL, false, false, &error);
  // CHECK-NEXT: status: 1
  // CHECK-NEXT: null handle: 1
  MepiStatus status = mepiErrorGetStatus(error);
  report("create", error);
  printf("status: %d\n", (int)status);
  printf("null handle: %d\n", mepiMatmulIsNull(bad));

  // CHECK: null pointer: operand a: null device pointer
  MepiTensor nullA = a;
  nullA.data = NULL;
  mepiMatmulCreate(&nullA, &b, NULL, 1.0f, NULL, false, false, &error);
  report("null pointer", error);

  // CHECK: beta: operand c: beta is required with c
  int64_t cShape[] = {8, 4};
  MepiTensor c = {fakePointer(), 0, MEPI_DTYPE_F16, 2, cShape, NULL};
  mepiMatmulCreate(&a, &b, &c, 1.0f, NULL, false, false, &error);
  report("beta", error);
}

// main then creates the handle that the next sections use.
// CHECK: created: 1

/* A created handle before and at plan(): built-in and user epilogs and their errors. */
static void planErrors(MepiMatmul mm) {
  MepiError error;
  int64_t biasShape[] = {4};

  // Before plan(): no aux outputs (and no exception out of the C API).
  // CHECK: aux outputs before plan: 0
  printf("aux outputs before plan: %d\n", mepiMatmulGetNumAuxOutputs(mm));

  // CHECK: execute: execute() called before plan()
  if (mepiLogicalResultIsFailure(mepiMatmulExecute(mm, NULL, NULL, &error)))
    report("execute", error);

  // CHECK: bias: plan: {{.*}}expected epilog input 0 (row) to have shape [batch..., 8]
  MepiTensor bias = {fakePointer(), 0, MEPI_DTYPE_F16, 1, biasShape, NULL};
  if (mepiLogicalResultIsFailure(mepiMatmulPlan(mm, MEPI_EPILOG_BIAS, &bias, &error)))
    report("bias", error);

  // CHECK: plan relu: ok
  if (mepiLogicalResultIsSuccess(mepiMatmulPlan(mm, MEPI_EPILOG_RELU, NULL, &error)))
    printf("plan relu: ok\n");
  else
    report("plan relu", error);

  // CHECK: user epilog: ok
  MepiStringRef siluText = {kSilu, strlen(kSilu)}, siluName = {"silu", 4};
  if (mepiLogicalResultIsSuccess(mepiMatmulPlanUserEpilog(mm, siluText, siluName, NULL, NULL, 0,
                                                          NULL, 0, &error)))
    printf("user epilog: ok\n");
  else
    report("user epilog", error);

  // CHECK: user epilog inputs: plan: user epilog @silu: expected type (f32, f16, index, index) -> f16 for this problem, got (f32, index, index) -> f16
  MepiInputKind rowKind = MEPI_INPUT_ROW;
  int64_t rowShape[] = {8};
  MepiTensor row = {fakePointer(), 0, MEPI_DTYPE_F16, 1, rowShape, NULL};
  if (mepiLogicalResultIsFailure(mepiMatmulPlanUserEpilog(mm, siluText, siluName, &row, &rowKind,
                                                          1, NULL, 0, &error)))
    report("user epilog inputs", error);
}

/* The catalog through the C API: options, every built-in input, aux outputs after execute. */
static void catalogInputs(MepiTensor a, MepiTensor b) {
  MepiError error;
  MepiMatmulOptions options = {true, {NULL, 0}};
  MepiMatmul withAmax = mepiMatmulCreateWithOptions(&a, &b, NULL, 1.0f, NULL, false, false,
                                                    &options, &error);
  // CHECK: drelu without mask: plan: {{.*}}relu_aux
  if (mepiLogicalResultIsFailure(
          mepiMatmulPlanWithInputs(withAmax, MEPI_EPILOG_DRELU_BGRAD, NULL, &error)))
    report("drelu without mask", error);
  int64_t maskShape[] = {16, 4}, maskStrides[] = {1, 16}, rowBias[] = {8};
  MepiTensor mask = {fakePointer(), 0, MEPI_DTYPE_U8, 2, maskShape, maskStrides};
  MepiEpilogInputs maskInput = {NULL, &mask, NULL};
  // CHECK: drelu_bgrad: ok
  if (mepiLogicalResultIsSuccess(
          mepiMatmulPlanWithInputs(withAmax, MEPI_EPILOG_DRELU_BGRAD, &maskInput, &error)))
    printf("drelu_bgrad: ok\n");
  else
    report("drelu_bgrad", error);
  MepiTensor goodBias = {fakePointer(), 0, MEPI_DTYPE_F16, 1, rowBias, NULL};
  MepiEpilogInputs biasInput = {&goodBias, NULL, NULL};
  // CHECK: relu_aux_bias: ok, aux outputs before execute: 0
  if (mepiLogicalResultIsSuccess(
          mepiMatmulPlanWithInputs(withAmax, MEPI_EPILOG_RELU_AUX_BIAS, &biasInput, &error)))
    printf("relu_aux_bias: ok, aux outputs before execute: %d\n",
           mepiMatmulGetNumAuxOutputs(withAmax));
  else
    report("relu_aux_bias", error);
  // CHECK: aux output: aux output 0: expected an index below 0 (the outputs exist after execute)
  MepiStringRef key;
  MepiTensor auxTensor;
  if (mepiLogicalResultIsFailure(mepiMatmulGetAuxOutput(withAmax, 0, &key, &auxTensor, &error)))
    report("aux output", error);
  mepiMatmulDestroy(withAmax);
}

/* Options of API version 2: the target, D's type, TF32; the planned configuration, and the
   error asking for it before plan(). */
static void tf32Options(void) {
  MepiError error;
  int64_t f32A[] = {128, 64}, f32B[] = {96, 64};
  MepiTensor a32 = {fakePointer(), 0, MEPI_DTYPE_F32, 2, f32A, NULL};
  MepiTensor b32 = {fakePointer(), 0, MEPI_DTYPE_F32, 2, f32B, NULL};
  MepiMatmulOptions tf32 = {false, {NULL, 0}, true, true, MEPI_DTYPE_BF16, {"sm_90a", 6}};
  MepiMatmul fast = mepiMatmulCreateWithOptions(&a32, &b32, NULL, 1.0f, NULL, false, true,
                                                &tf32, &error);
  MepiStringRef config;
  // CHECK: tf32 config: #mepi.kernel_config<wgmma, tile = [{{[0-9]+}}, {{[0-9]+}}, 32]
  if (mepiLogicalResultIsSuccess(mepiMatmulPlan(fast, MEPI_EPILOG_DEFAULT, NULL, &error)) &&
      mepiLogicalResultIsSuccess(mepiMatmulGetKernelConfiguration(fast, &config, &error)))
    printf("tf32 config: %.*s\n", (int)config.length, config.data);
  else
    report("tf32", error);
  mepiMatmulDestroy(fast);
  // CHECK: config before plan: kernelConfiguration() called before plan()
  MepiMatmul unplanned = mepiMatmulCreate(&a32, &b32, NULL, 1.0f, NULL, false, true, &error);
  if (mepiLogicalResultIsFailure(mepiMatmulGetKernelConfiguration(unplanned, &config, &error)))
    report("config before plan", error);
  mepiMatmulDestroy(unplanned);
}

/* 8-bit operands' options (API versions 6 and 7). */
static void fp8Options(void) {
  MepiError error;
  MepiStringRef config;
  // Options of API version 6: GELU_AUX's aux in e4m3 with its scale and amax beside 8-bit
  // operands; the scale is required.
  int64_t f8A[] = {64, 128}, f8B[] = {32, 128}, one[] = {1};
  MepiTensor a8 = {fakePointer(), 0, MEPI_DTYPE_F8E4M3FN, 2, f8A, NULL};
  MepiTensor b8 = {fakePointer(), 0, MEPI_DTYPE_F8E4M3FN, 2, f8B, NULL};
  MepiMatmulOptions fp8Aux = {false, {NULL, 0}, false, true, MEPI_DTYPE_F8E4M3FN, {"sm_90a", 6}};
  fp8Aux.hasAuxType = true;
  fp8Aux.auxType = MEPI_DTYPE_F8E4M3FN;
  fp8Aux.auxAmax = true;
  MepiMatmul quantized = mepiMatmulCreateWithOptions(&a8, &b8, NULL, 1.0f, NULL, false, true,
                                                     &fp8Aux, &error);
  // CHECK: fp8 aux without its scale: plan: {{.*}}an 8-bit gelu_aux needs the epilog input 'aux_quantization_scale'
  if (mepiLogicalResultIsFailure(
          mepiMatmulPlanWithInputs(quantized, MEPI_EPILOG_GELU_AUX, NULL, &error)))
    report("fp8 aux without its scale", error);
  MepiTensor auxScale = {fakePointer(), 0, MEPI_DTYPE_F32, 1, one, NULL};
  MepiEpilogInputs scaled = {NULL, NULL, NULL, &auxScale};
  // CHECK: fp8 aux: ok
  if (mepiLogicalResultIsSuccess(
          mepiMatmulPlanWithInputs(quantized, MEPI_EPILOG_GELU_AUX, &scaled, &error)))
    printf("fp8 aux: ok\n");
  else
    report("fp8 aux", error);
  mepiMatmulDestroy(quantized);
  // Options of API version 7: C's scale beside the product's (D = sD * epilog(alpha sA sB A B +
  // beta sC C)); it needs an operand c.
  int64_t f8C[] = {64, 32};
  MepiTensor c16 = {fakePointer(), 0, MEPI_DTYPE_BF16, 2, f8C, NULL};
  MepiTensor scalar = {fakePointer(), 0, MEPI_DTYPE_F32, 0, NULL, NULL};
  MepiMatmulOptions fp8C = {false, {NULL, 0}, false, true, MEPI_DTYPE_F8E4M3FN, {"sm_90a", 6}};
  fp8C.aScale = fp8C.bScale = fp8C.cScale = fp8C.dScale = &scalar;
  float beta8 = 0.5f;
  MepiMatmul withC = mepiMatmulCreateWithOptions(&a8, &b8, &c16, 1.0f, &beta8, false, true,
                                                 &fp8C, &error);
  // CHECK: fp8 with C and its scale: ok
  if (!mepiMatmulIsNull(withC) &&
      mepiLogicalResultIsSuccess(mepiMatmulPlan(withC, MEPI_EPILOG_GELU, NULL, &error)))
    printf("fp8 with C and its scale: ok\n");
  else
    report("fp8 with C and its scale", error);
  mepiMatmulDestroy(withC);
  // BGRADB beside 8-bit A and B with their scales: the GEMM is the promoted FP8 kernel (its op
  // sums nothing: the bias gradient is a pass after it).
  MepiMatmulOptions fp8Scaled = {false, {NULL, 0}, false, true, MEPI_DTYPE_BF16, {"sm_90a", 6}};
  fp8Scaled.aScale = fp8Scaled.bScale = &scalar;
  MepiMatmul bgrad = mepiMatmulCreateWithOptions(&a8, &b8, NULL, 1.0f, NULL, false, true,
                                                 &fp8Scaled, &error);
  // CHECK: fp8 bgradb config: #mepi.kernel_config<wgmma, {{.*}}promote = 1
  if (!mepiMatmulIsNull(bgrad) &&
      mepiLogicalResultIsSuccess(mepiMatmulPlan(bgrad, MEPI_EPILOG_BGRADB, NULL, &error)) &&
      mepiLogicalResultIsSuccess(mepiMatmulGetKernelConfiguration(bgrad, &config, &error)))
    printf("fp8 bgradb config: %.*s\n", (int)config.length, config.data);
  else
    report("fp8 bgradb", error);
  mepiMatmulDestroy(bgrad);
  // CHECK: fp8 C scale without C: quantization scale c: given without an operand c (it scales C)
  MepiMatmul noC = mepiMatmulCreateWithOptions(&a8, &b8, NULL, 1.0f, NULL, false, true, &fp8C,
                                               &error);
  if (mepiMatmulIsNull(noC))
    report("fp8 C scale without C", error);
}

/* The operands' lifecycle: reset with a wrong shape (`badB`), release, execute after it. */
static void operandLifecycle(MepiMatmul mm, MepiTensor a, MepiTensor badB) {
  MepiError error;
  // CHECK: reset: resetOperands: operand b: expected shape [16, 4], got [12, 8]
  if (mepiLogicalResultIsFailure(mepiMatmulResetOperands(mm, &a, &badB, NULL, NULL, &error)))
    report("reset", error);

  // CHECK: released: execute() after releaseOperands(): call resetOperands() first
  mepiMatmulReleaseOperands(mm);
  if (mepiLogicalResultIsFailure(mepiMatmulExecute(mm, NULL, NULL, &error)))
    report("released", error);
}

/* Every entry point with a null handle: an error (or nothing) and no crash. */
static void nullHandles(MepiTensor a, MepiTensor b) {
  MepiError error;
  MepiStringRef siluText = {kSilu, strlen(kSilu)}, siluName = {"silu", 4};
  // CHECK: null handle error: null MepiMatmul handle
  MepiMatmul none = {NULL};
  if (mepiLogicalResultIsFailure(mepiMatmulPlan(none, MEPI_EPILOG_DEFAULT, NULL, &error)))
    report("null handle error", error);

  // CHECK: null handles: 10 errors
  int nullErrors = 0;
  MepiStringRef text;
  MepiTensor out;
  nullErrors += failedAndFreed(mepiMatmulPlanWithInputs(none, MEPI_EPILOG_DEFAULT, NULL, &error),
                               &error);
  nullErrors += failedAndFreed(
      mepiMatmulPlanUserEpilog(none, siluText, siluName, NULL, NULL, 0, NULL, 0, &error), &error);
  nullErrors += failedAndFreed(mepiMatmulPlanUserEpilogWithOutputs(none, siluText, siluName, NULL,
                                                                   NULL, 0, NULL, 0, NULL, 0,
                                                                   NULL, &error),
                               &error);
  nullErrors += failedAndFreed(mepiMatmulExecute(none, NULL, &out, &error), &error);
  nullErrors += failedAndFreed(mepiMatmulGetAuxOutput(none, 0, &text, &out, &error), &error);
  nullErrors += failedAndFreed(mepiMatmulGetKernelConfiguration(none, &text, &error), &error);
  nullErrors += failedAndFreed(mepiMatmulAutotune(none, 3, 0, NULL, &error), &error);
  nullErrors += failedAndFreed(mepiMatmulResetOperands(none, &a, &b, NULL, NULL, &error), &error);
  nullErrors += failedAndFreed(
      mepiMatmulResetOperandsWithInputs(none, &a, &b, NULL, NULL, &error), &error);
  nullErrors += failedAndFreed(mepiMatmulPlan(none, MEPI_EPILOG_BIAS, NULL, &error), &error);
  printf("null handles: %d errors\n", nullErrors);
  // CHECK-NEXT: null handle aux outputs: 0, status of no error: 0
  MepiError noError = {NULL};
  printf("null handle aux outputs: %d, status of no error: %d\n", mepiMatmulGetNumAuxOutputs(none),
         (int)mepiErrorGetStatus(noError));
  mepiMatmulReleaseOperands(none);
  mepiMatmulDestroy(none);
}

int main(void) {
  printf("api version %u\n", mepiGetApiVersion());
  int64_t aShape[] = {8, 16}, badShape[] = {12, 8}, bShape[] = {16, 4};
  MepiTensor a = {fakePointer(), 0, MEPI_DTYPE_F16, 2, aShape, NULL};
  MepiTensor badB = {fakePointer(), 0, MEPI_DTYPE_F16, 2, badShape, NULL};
  MepiTensor b = {fakePointer(), 0, MEPI_DTYPE_F16, 2, bShape, NULL};
  MepiError error;
  createErrors(a, badB, b);
  MepiMatmul mm = mepiMatmulCreate(&a, &b, NULL, 1.0f, NULL, false, false, &error);
  printf("created: %d\n", !mepiMatmulIsNull(mm) && mepiErrorIsNull(error));
  planErrors(mm);
  catalogInputs(a, b);
  tf32Options();
  fp8Options();
  operandLifecycle(mm, a, badB);
  nullHandles(a, b);

  // The log callback hears, planning it again, the cache's hit (debug, 10), then the plan
  // (info, 20).
  // CHECK: log: 10 kernel cache: hit in memory
  // CHECK: log: 20 plan: RELU, a [8, 16], b [16, 4], d [8, 4] on sm_90a: #mepi.kernel_config<
  mepiSetLogCallback(printMessage, NULL);
  mepiMatmulPlan(mm, MEPI_EPILOG_RELU, NULL, &error);
  mepiSetLogCallback(NULL, NULL);
  mepiMatmulDestroy(mm);
  // CHECK: done
  printf("done\n");
  return 0;
}
