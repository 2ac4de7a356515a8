/* The C API without a GPU: version, handles, and each error as a message (nothing launches). */
// RUN: mepi-capi-matmul 2>&1 | FileCheck %s

#include "mepi-c/Matmul.h"

#include <stdint.h>
#include <stdio.h>

static void *fakePointer(void) { return (void *)(uintptr_t)0x7f0000000000ull; }

static void report(const char *what, MepiError error) {
  MepiStringRef message = mepiErrorGetMessage(error);
  printf("%s: %.*s\n", what, (int)message.length, message.data);
  mepiErrorDestroy(error);
}

int main(void) {
  // CHECK: api version 1
  printf("api version %u\n", mepiGetApiVersion());

  int64_t aShape[] = {8, 16}, bShape[] = {12, 8}, goodB[] = {16, 4}, biasShape[] = {4};
  MepiTensor a = {fakePointer(), 0, MEPI_DTYPE_F16, 2, aShape, NULL};
  MepiTensor b = {fakePointer(), 0, MEPI_DTYPE_F16, 2, bShape, NULL};
  MepiError error;

  // CHECK: create: invalid matmul: {{.*}}expected op(a) and op(b) to agree on K, got 16 and 12
  MepiMatmul bad = mepiMatmulCreate(&a, &b, NULL, 1.0f, NULL, false, false, &error);
  // CHECK-NEXT: null handle: 1
  report("create", error);
  printf("null handle: %d\n", mepiMatmulIsNull(bad));

  // CHECK: null pointer: operand a: null device pointer
  MepiTensor nullA = a;
  nullA.data = NULL;
  b.shape = goodB;
  mepiMatmulCreate(&nullA, &b, NULL, 1.0f, NULL, false, false, &error);
  report("null pointer", error);

  // CHECK: beta: operand c: beta is required with c
  int64_t cShape[] = {8, 4};
  MepiTensor c = {fakePointer(), 0, MEPI_DTYPE_F16, 2, cShape, NULL};
  mepiMatmulCreate(&a, &b, &c, 1.0f, NULL, false, false, &error);
  report("beta", error);

  MepiMatmul mm = mepiMatmulCreate(&a, &b, NULL, 1.0f, NULL, false, false, &error);
  // CHECK: created: 1
  printf("created: %d\n", !mepiMatmulIsNull(mm) && mepiErrorIsNull(error));

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

  // CHECK: reset: resetOperands: operand b: expected shape [16, 4], got [12, 8]
  b.shape = bShape;
  if (mepiLogicalResultIsFailure(mepiMatmulResetOperands(mm, &a, &b, NULL, NULL, &error)))
    report("reset", error);

  // CHECK: released: execute() after releaseOperands(): call resetOperands() first
  mepiMatmulReleaseOperands(mm);
  if (mepiLogicalResultIsFailure(mepiMatmulExecute(mm, NULL, NULL, &error)))
    report("released", error);

  // CHECK: null handle error: null MepiMatmul handle
  MepiMatmul none = {NULL};
  if (mepiLogicalResultIsFailure(mepiMatmulPlan(none, MEPI_EPILOG_DEFAULT, NULL, &error)))
    report("null handle error", error);

  mepiMatmulDestroy(mm);
  // CHECK: done
  printf("done\n");
  return 0;
}
