// store = tma with a tile width that is not a multiple of a 128-byte line: 160 bf16 columns are
// two whole lines and half of one. The whole lines go to TMA stores (a box of a line by 64 rows
// would write the next tile's columns for the half one); the half line is written into its
// buffer as the others are, and after the consumer's barrier each of the 128 threads copies two
// 16-byte units of it to D (64 rows of 64 bytes), inside D only. Three lines per slice, an odd
// count with two buffers: the first line waits for the previous slice's stores. In ping-pong
// (64 x 160) alike. ptxas assembles both without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CHECK-LABEL: .entry narrow_matmul_0(
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: fence.proxy.async.shared::cta;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-COUNT-2: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared
// CHECK: bar.sync
// CHECK: ld.shared.v4.b32
// CHECK-NEXT: st.global.v4.b32
// CHECK: ld.shared.v4.b32
// CHECK-NEXT: st.global.v4.b32
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared
// CHECK: cp.async.bulk.wait_group 0;
// CHECK-LABEL: .entry narrow_pingpong_matmul_0(
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared
// CHECK: st.global.v4.b32
// CHECK: st.global.v4.b32
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared

// PTXAS-NOT: warning
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @narrow(%a: memref<1000x4096xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<1000x4096xbf16> {mepi.alignment = 16 : i64},
                  %bias: memref<1000xbf16>,
                  %d: memref<1000x1000xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xbf16>, memref<1000x4096xbf16>)
      inputs(%bias as row : memref<1000xbf16>)
      outs(%d : memref<1000x1000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 160, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
func.func @narrow_pingpong(%a: memref<1000x320xbf16> {mepi.alignment = 16 : i64},
                           %b: memref<1000x320xbf16> {mepi.alignment = 16 : i64},
                           %d: memref<1000x1000xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x320xbf16>, memref<1000x320xbf16>)
      outs(%d : memref<1000x1000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [64, 160, 64], mainloop = <stages = 4, pingpong = true>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
