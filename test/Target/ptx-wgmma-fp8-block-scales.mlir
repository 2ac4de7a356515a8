// FP8 block scaling on the wgmma family: a k-step ahead of its use (one k-step is one
// 128-element block of K) a consumer thread loads the scales of its two rows of each slice
// (a_block_scales) and of its tile's 128 columns (b_block_scales), and the promotion adds the
// k-step's sums times their product (fma) into the f32 accumulators; the epilog scales nothing. The heuristic
// picks tiles whose columns lie in one block of 128 (not 128 x 192). ptxas assembles it
// without spills and without serializing the wgmmas. A forced 128 x 192 tile is refused.
// REQUIRES: ptxas
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config=chip=sm_90a | FileCheck %s --check-prefix=CONFIG
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: sed 's/attributes {transpose_b}/attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 96, 128], mainloop = <stages = 4, promote = 1>>}/' %s \
// RUN:   | not mepi-opt --mepi-generate-kernels=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=WIDE

// CONFIG-LABEL: func.func @block_scaled
// CONFIG: config = #mepi.kernel_config<wgmma, tile = [{{64|128}}, {{64|128|192}}, 128], {{.*}}promote = 1>

// CHECK-LABEL: .entry block_scaled_matmul_0
// The first block's scales before the loop; in it, the promotion (the latch block comes
// first), then the next block's scales loaded before the stage's wait and wgmmas:
// CHECK: ld.global.b32
// CHECK: mul.rn.f32 [[FACTOR:%r[0-9]+]],
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: fma.rn.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[FACTOR]],
// CHECK: ld.global.b32
// CHECK: mbarrier.try_wait
// CHECK: wgmma.mma_async.sync.aligned.m64n{{64|128}}k32.f32.e4m3.e4m3
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// WIDE: block scales need promote = 1 over k-steps of 128 elements and tile_n dividing 128 or a multiple of 64 up to 256
func.func @block_scaled(%a: memref<1000x4000xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %b: memref<520x4000xf8E4M3FN> {mepi.alignment = 16 : i64},
                        %sa: memref<1000x32xf32, strided<[1, 1000]>>, %sb: memref<5x32xf32>,
                        %d: memref<1000x520xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4000xf8E4M3FN>, memref<520x4000xf8E4M3FN>)
      outs(%d : memref<1000x520xbf16>)
      block_scales(%sa, %sb : memref<1000x32xf32, strided<[1, 1000]>>, memref<5x32xf32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
