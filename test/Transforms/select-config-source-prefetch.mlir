// Where C (beta * C) is a rank-2 row-major matrix of 16-byte aligned rows and D is unbatched,
// every wgmma candidate with TMA loads prefetches C's tiles into L2 (prefetch_source); C
// without the alignment promise, or a batched problem, keeps the epilog's own loads only.
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config="chip=sm_90a" | FileCheck %s

// CHECK-LABEL: func.func @aligned_c
// CHECK: config = #mepi.kernel_config<wgmma, {{.*}}prefetch_source = true>>
func.func @aligned_c(%a: memref<8192x4096xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                     %c: memref<8192x4096xbf16> {mepi.alignment = 16 : i64}, %beta: f32,
                     %d: memref<8192x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x4096xbf16>, memref<4096x4096xbf16>) alpha(%alpha)
      c(%c : memref<8192x4096xbf16>) beta(%beta) outs(%d : memref<8192x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @unpromised_c
// CHECK-NOT: prefetch_source
// CHECK: return
func.func @unpromised_c(%a: memref<8192x4096xbf16> {mepi.alignment = 16 : i64},
                        %b: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                        %c: memref<8192x4096xbf16>, %beta: f32,
                        %d: memref<8192x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x4096xbf16>, memref<4096x4096xbf16>) alpha(%alpha)
      c(%c : memref<8192x4096xbf16>) beta(%beta) outs(%d : memref<8192x4096xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: func.func @batched_c
// CHECK-NOT: prefetch_source
// CHECK: return
func.func @batched_c(%a: memref<4x2048x1024xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<4x1024x1024xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                     %c: memref<4x2048x1024xbf16> {mepi.alignment = 16 : i64}, %beta: f32,
                     %d: memref<4x2048x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4x2048x1024xbf16>, memref<4x1024x1024xbf16>) alpha(%alpha)
      c(%c : memref<4x2048x1024xbf16>) beta(%beta) outs(%d : memref<4x2048x1024xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
