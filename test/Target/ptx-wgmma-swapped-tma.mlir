// The swapped form's TMA stores (176-row tiles): each consumer turns its fragments of Dᵀ into
// rows of D with stmatrix.trans, 64 rows at a time into its buffers, and stores them in boxes
// of 16 rows (gcd(176, 64): the last chunk's 48 rows must not reach the next tile row).
// ptxas assembles it without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 176] swizzle 128
// IR: mepi.tensor_map %arg1 box [64, 128] swizzle 128
// IR: mepi.tensor_map %arg3 box [64, 16] swizzle 128
// 12 tile rows of 176 (the last holds 64 rows of D) by 2 of 128 columns: 24 blocks.
// IR: blocks in (%c24, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// IR-SAME: swapped = true

// CHECK: .entry gemm_matmul_0(
// CHECK: wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16
// CHECK: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @gemm(%a: memref<2000x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<256x4096xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<256xbf16>,
                %d: memref<2000x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2000x4096xbf16>, memref<256x4096xbf16>)
      inputs(%bias as col : memref<256xbf16>)
      outs(%d : memref<2000x256xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [176, 128, 64], mainloop = <stages = 4>, epilogue = <store = tma>, swapped = true>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
