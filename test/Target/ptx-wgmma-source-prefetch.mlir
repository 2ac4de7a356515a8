// prefetch_source: the producer's issuing thread prefetches the tile's rows of C into L2 in the
// unit's last k-steps (one cp.async.bulk.prefetch.L2 per row), so that the epilog's pair loads
// of C hit L2. The same kernel without the setting issues none. ptxas assembles both without
// spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: .entry prefetched_matmul_0(
// CHECK: wgmma.mma_async
// CHECK: ld.global.{{(v2.b16|b32|u32)}}
// CHECK: cp.async.bulk.prefetch.L2.global [{{%rd[0-9]+}}], {{%r[0-9]+}};
// CHECK-LABEL: .entry plain_matmul_0(
// CHECK-NOT: cp.async.bulk.prefetch
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
func.func @prefetched(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
                      %b: memref<776x512xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                      %c: memref<1000x776xbf16> {mepi.alignment = 16 : i64}, %beta: f32,
                      %d: memref<1000x776xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<776x512xbf16>) alpha(%alpha)
      c(%c : memref<1000x776xbf16>) beta(%beta) outs(%d : memref<1000x776xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma, prefetch_source = true>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @plain(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
                 %b: memref<776x512xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                 %c: memref<1000x776xbf16> {mepi.alignment = 16 : i64}, %beta: f32,
                 %d: memref<1000x776xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<776x512xbf16>) alpha(%alpha)
      c(%c : memref<1000x776xbf16>) beta(%beta) outs(%d : memref<1000x776xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
