// FP8 block scaling on the wgmma family: one k-step is one 128-element block of K. The
// producer's first warp copies each stage's scales (A's of the tile's rows, B's of its blocks
// of 128 columns) beside its tiles, with cp.async tracked by the stage's full barrier; a
// consumer thread reads its rows' and columns' scales from the full stage, and the promotion
// adds the k-step's sums times their product (fma) into the f32 accumulators; the epilog
// scales nothing. The heuristic picks tiles whose columns lie in at most two blocks of 128.
// ptxas assembles it without spills and without serializing the wgmmas. A forced 128 x 96
// tile is refused.
// REQUIRES: ptxas
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config=chip=sm_90a | FileCheck %s --check-prefix=CONFIG
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=NOGLOBAL
// The consumer's and producer's order is checked on one tile, 128 x 64 (two consumers):
// RUN: sed 's/attributes {transpose_b}/attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 64, 128], mainloop = <stages = 7, promote = 1>, epilogue = <store = tma>>}/' %s \
// RUN:   | mepi-opt --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.narrow.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.narrow.ptx
// RUN: FileCheck %s --input-file=%t.narrow.ptx --check-prefix=NOGLOBAL
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: sed 's/attributes {transpose_b}/attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = 4, promote = 1>>}/' %s \
// RUN:   | mepi-opt --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.wide.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.wide.ptx --check-prefix=LONG --implicit-check-not=cp.async.ca
// RUN: sed 's/attributes {transpose_b}/attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 96, 128], mainloop = <stages = 4, promote = 1>>}/' %s \
// RUN:   | not mepi-opt --mepi-generate-kernels=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: sed 's/attributes {transpose_b}/attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma, buffers = 1>>}/' %s \
// RUN:   | mepi-opt --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.slices.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.slices.ptx --check-prefix=SLICES
// RUN: %ptxas -arch=sm_90a -v %t.slices.ptx -o %t.slices.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: sed 's/attributes {transpose_b}/attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 128], mainloop = <stages = 3, promote = 1>>}/' %s \
// RUN:   | not mepi-opt --mepi-generate-kernels=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=REGISTERS

// CONFIG-LABEL: func.func @block_scaled
// Block-scaled 64 x 128 (one consumer) with TMA stores, alone (RankKernelConfigs.cpp):
// CONFIG: config = #mepi.kernel_config<wgmma, tile = [64, 128, 128], mainloop = <stages = 8, promote = 1>, epilogue = <store = tma>>

// CHECK-LABEL: .entry block_scaled_matmul_0
// The consumer: the stage's wait, its wgmmas, its scales read from shared memory, the wait
// for the wgmmas, the promotion:
// CHECK: mbarrier.try_wait
// CHECK: wgmma.mma_async.sync.aligned.m64n{{64|128}}k32.f32.e4m3.e4m3
// CHECK: ld.shared.b32
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: fma.rn.f32
// The producer: each copying thread's scales, then its arrival once they land.
// CHECK: cp.async.ca.shared.global [{{.*}}], [{{.*}}], 4;
// CHECK: cp.async.mbarrier.arrive.noinc.shared.b64
// No thread loads a scale from global memory itself:
// NOGLOBAL-NOT: ld.global
// Tiles of 192 columns (k-steps longer than a load from DRAM): each consumer thread loads its
// scales from global memory a k-step ahead (before the stage's wait), no copies by the producer.
// LONG-LABEL: .entry block_scaled_matmul_0
// LONG: ld.global.b32
// LONG: mbarrier.try_wait
// LONG: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

// 256 x 128, promoted by slice: each consumer's second slice is issued from the same stage once
// the first slice's sums are added, waited for, then added in turn (fma by the staged scales).
// SLICES-LABEL: .entry block_scaled_matmul_0
// SLICES: wgmma.wait_group.sync.aligned 0;
// SLICES: fma.rn.f32
// SLICES: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// SLICES: wgmma.commit_group.sync.aligned;
// SLICES-NEXT: wgmma.wait_group.sync.aligned 0;
// SLICES: fma.rn.f32
// A second set for both slices would take 2 x 2 x 64 registers; 128 x 256 has one slice of 128.
// REGISTERS: promoted accumulators take at most 192 registers a thread (both sets), got 256
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
