// store = tma: D's tensor map (boxes of one 128-byte line by 64 rows, 128-byte swizzle) leads
// after A's and B's. Before any access to global memory or shared barriers the block waits for
// the grid before it (griddepcontrol.wait: the runtime launches it programmatically). Per line, each consumer warp writes its values into the swizzled buffer
// (16-bit D: stmatrix, four 8 x 8 matrices at a time; f32 D: 8-byte stores),
// fences them to the async proxy, the issuing thread waits until the previous line's store has
// read its buffer, the warpgroup meets at its barrier, and the issuing thread starts the TMA
// store and commits it; before leaving, it waits for all its stores. f32 D: boxes of 32
// columns. ptxas assembles both without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR-LABEL: func.func @gemm(
// IR: mepi.tensor_map %arg0 box [64, 128] swizzle 128
// IR: mepi.tensor_map %arg1 box [64, 256] swizzle 128
// IR: mepi.tensor_map %arg3 box [64, 64] swizzle 128 : memref<1000x1024xbf16>
// IR-LABEL: func.func @gemm_f32(
// IR: mepi.tensor_map %arg2 box [32, 64] swizzle 128 : memref<300x512xf32>

// CHECK: .entry gemm_matmul_0(
// CHECK-NOT: {{ld.global|st.global|mbarrier|cp.async}}
// CHECK: griddepcontrol.wait;
// CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: fence.proxy.async.shared::cta;
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group 0;
// CHECK: .entry gemm_f32_matmul_0(
// CHECK-NOT: stmatrix
// CHECK: st.shared.v2.b32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK: cp.async.bulk.wait_group 0;

// PTXAS-NOT: warning
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<1000x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<1024x4096xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<1000xbf16>,
                %d: memref<1000x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xbf16>, memref<1024x4096xbf16>)
      inputs(%bias as row : memref<1000xbf16>)
      outs(%d : memref<1000x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @gemm_f32(%a: memref<300x1000xf16> {mepi.alignment = 16 : i64},
                    %b: memref<512x1000xf16> {mepi.alignment = 16 : i64},
                    %d: memref<300x512xf32> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<300x1000xf16>, memref<512x1000xf16>)
      outs(%d : memref<300x512xf32>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, pingpong = true>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
