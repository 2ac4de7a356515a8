/* The distributed matmul C API without GPUs: local shapes, and errors as messages (before
 * mepiDistInitialize, null handles, bad distributions). */
// RUN: mepi-capi-distributed 2>&1 | FileCheck %s

#include "mepi-c/Distributed.h"

#include <stdint.h>
#include <stdio.h>

static void *fakePointer(void) { return (void *)(uintptr_t)0x7f0000000000ull; }

static void report(const char *what, MepiLogicalResult result, MepiError error) {
  if (mepiLogicalResultIsSuccess(result)) {
    printf("%s: succeeded\n", what);
    return;
  }
  MepiStringRef message = mepiErrorGetMessage(error);
  printf("%s: status %d: %.*s\n", what, (int)mepiErrorGetStatus(error), (int)message.length,
         message.data);
  mepiErrorDestroy(error);
}

int main(void) {
  MepiError error;
  MepiDistribution slabX = {MEPI_DIST_SLAB_X, 0, 0, 0, 0};
  MepiDistribution slabY = {MEPI_DIST_SLAB_Y, 0, 0, 0, 0};
  int64_t rows = 0, cols = 0;
  // 1001 rows over 2 ranks: 501 on rank 0, 500 on rank 1.
  // CHECK: slab x rank 0: 501 x 64
  // CHECK: slab x rank 1: 500 x 64
  for (int r = 0; r < 2; ++r) {
    mepiDistLocalShape(&slabX, r, 2, 1001, 64, &rows, &cols, &error);
    printf("slab x rank %d: %lld x %lld\n", r, (long long)rows, (long long)cols);
  }
  // CHECK: slab y rank 2 of 3: 64 x 333
  mepiDistLocalShape(&slabY, 2, 3, 64, 1000, &rows, &cols, &error);
  printf("slab y rank 2 of 3: %lld x %lld\n", (long long)rows, (long long)cols);
  // CHECK: bad rank: status 1: mepiDistLocalShape: expected 0 <= rank < ranks, got rank 2 of 2
  report("bad rank", mepiDistLocalShape(&slabX, 2, 2, 10, 10, &rows, &cols, &error), error);
  // CHECK: bad grid: status 1: distribution: BLOCK_CYCLIC needs a grid and block sizes >= 1
  MepiDistribution badGrid = {MEPI_DIST_BLOCK_CYCLIC, 0, 2, 64, 64};
  report("bad grid", mepiDistLocalShape(&badGrid, 0, 2, 10, 10, &rows, &cols, &error), error);

  int64_t aShape[] = {512, 64}, bShape[] = {96, 64};
  MepiTensor a = {fakePointer(), 0, MEPI_DTYPE_BF16, 2, aShape, NULL};
  MepiTensor b = {fakePointer(), 0, MEPI_DTYPE_BF16, 2, bShape, NULL};
  MepiDistribution dists[3] = {slabX, slabX, slabY};
  // CHECK: before initialize: null 1: mepi::dist: not initialized: call mepi::dist::initialize
  MepiDistMatmul mm =
      mepiDistMatmulCreate(&a, &b, NULL, dists, 1.0f, NULL, false, true, NULL, 0, &error);
  MepiStringRef message = mepiErrorGetMessage(error);
  printf("before initialize: null %d: %.*s\n", mepiDistMatmulIsNull(mm), (int)message.length,
         message.data);
  mepiErrorDestroy(error);
  // CHECK: null handle: status 1: null MepiDistMatmul handle
  report("null handle", mepiDistMatmulPlan(mm, MEPI_EPILOG_DEFAULT, NULL, &error), error);
  MepiStringRef noText = {"", 0};
  // CHECK: null outputs plan: status 1: null MepiDistMatmul handle
  report("null outputs plan",
         mepiDistMatmulPlanUserEpilogWithOutputs(mm, noText, noText, NULL, NULL, 0, NULL, 0,
                                                 NULL, 0, NULL, &error),
         error);
  // CHECK: null execute: status 1: null MepiDistMatmul handle
  report("null execute", mepiDistMatmulExecute(mm, NULL, NULL, &error), error);
  // CHECK: null aux outputs: 0
  printf("null aux outputs: %d\n", mepiDistMatmulGetNumAuxOutputs(mm));
  // CHECK: null aux output: status 1: null MepiDistMatmul handle
  report("null aux output", mepiDistMatmulGetAuxOutput(mm, 0, NULL, NULL, &error), error);
  // CHECK: bad initialize: status 1: initialize: rank 3 of 2 ranks
  MepiDistUniqueId id = {{0}};
  report("bad initialize", mepiDistInitialize(0, 3, 2, &id, &error), error);
  mepiDistMatmulDestroy(mm);
  mepiDistFinalize();
  return 0;
}
