// The swapped form over many tile rows with a tile height fitted to the wave (Dᵀ = B Aᵀ): A's
// 176 rows are each wgmma's n side (m64n176k16), B's 64 rows per consumer its m side; A's TMA
// box holds 176 rows (22 swizzle atoms, so B's tile starts on a 1024-byte boundary), and the
// epilog stores D element by element. ptxas assembles it without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR: mepi.tensor_map %arg0 box [64, 176] swizzle 128
// IR: mepi.tensor_map %arg1 box [64, 128] swizzle 128
// 12 tile rows of 176 (the last holds 64 rows of D) by 2 of 128 columns: 24 blocks.
// IR: blocks in (%c24, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// IR-SAME: swapped = true

// CHECK: .entry gemm_matmul_0(
// CHECK: wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16
// CHECK: st.global.b16

// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @gemm(%a: memref<2000x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<256x4096xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<256xbf16>,
                %d: memref<2000x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<2000x4096xbf16>, memref<256x4096xbf16>)
      inputs(%bias as col : memref<256xbf16>)
      outs(%d : memref<2000x256xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [176, 128, 64], mainloop = <stages = 5>, swapped = true>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
