// Mirrors: every value stored to D is stored to each mirror too, by each form of D's store.
// tma: a tensor map per mirror follows D's (same box and swizzle) and each line's TMA store is
// issued once for D and once per mirror, in one bulk group. registers: each pair stored to D
// and to the mirror. staged: each vector of D stored twice. swapped (short M, Dᵀ in registers)
// and simt: each element stored to both. ptxas assembles every kernel without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR-LABEL: func.func @tma(
// IR: mepi.tensor_map %arg0 box [64, 128] swizzle 128
// IR: mepi.tensor_map %arg1 box [64, 256] swizzle 128
// IR: %[[D:.*]] = mepi.tensor_map %arg2 box [64, 64] swizzle 128 : memref<1000x1024xbf16>
// IR: %[[M0:.*]] = mepi.tensor_map %arg3 box [64, 64] swizzle 128 : memref<1000x1024xbf16>
// IR: %[[M1:.*]] = mepi.tensor_map %arg4 box [64, 64] swizzle 128 : memref<1000x1024xbf16>
// IR: gpu.launch_func {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[D]] : !llvm.ptr, %[[M0]] : !llvm.ptr, %[[M1]] : !llvm.ptr,
// IR-SAME: %arg2 : memref<1000x1024xbf16>, %arg3 : memref<1000x1024xbf16>, %arg4 : memref<1000x1024xbf16>)
// IR: mepi.tensor_map_params = 5 : i32

// CHECK: .entry tma_matmul_0(
// CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: bar.sync
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r[[COL:[0-9]+]], %r[[ROW:[0-9]+]]}], [%rd[[BUF:[0-9]+]]];
// CHECK-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r[[COL]], %r[[ROW]]}], [%rd[[BUF]]];
// CHECK-NEXT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {%r[[COL]], %r[[ROW]]}], [%rd[[BUF]]];
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group 0;
// CHECK: .entry registers_matmul_0(
// CHECK: st.global.b32 [%rd{{[0-9]+}}], %r[[PAIR:[0-9]+]];
// CHECK-NOT: st.global
// CHECK: st.global.b32 [%rd{{[0-9]+}}], %r[[PAIR]];
// CHECK: .entry staged_matmul_0(
// CHECK: st.global.v2.b32 [%rd{{[0-9]+}}], {%r[[X:[0-9]+]], %r[[Y:[0-9]+]]};
// CHECK-NOT: st.global
// CHECK: st.global.v2.b32 [%rd{{[0-9]+}}], {%r[[X]], %r[[Y]]};
// CHECK: .entry swapped_matmul_0(
// CHECK: st.global.b16 [%rd{{[0-9]+}}], %rs[[E:[0-9]+]];
// CHECK-NEXT: st.global.b16 [%rd{{[0-9]+}}], %rs[[E]];
// CHECK: .entry simt_matmul_0(
// CHECK: st.global.b16 [%rd{{[0-9]+}}], %rs[[S:[0-9]+]];
// CHECK-NOT: st.global
// CHECK: st.global.b16 [%rd{{[0-9]+}}], %rs[[S]];

// PTXAS-NOT: warning
// PTXAS-COUNT-5: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @tma(%a: memref<1000x4096xbf16> {mepi.alignment = 16 : i64},
               %b: memref<1024x4096xbf16> {mepi.alignment = 16 : i64},
               %d: memref<1000x1024xbf16> {mepi.alignment = 16 : i64},
               %m0: memref<1000x1024xbf16> {mepi.alignment = 16 : i64},
               %m1: memref<1000x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xbf16>, memref<1024x4096xbf16>)
      outs(%d : memref<1000x1024xbf16>)
      mirrors(%m0, %m1 : memref<1000x1024xbf16>, memref<1000x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @registers(%a: memref<1000x4096xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<1024x4096xbf16> {mepi.alignment = 16 : i64},
                     %d: memref<1000x1024xbf16> {mepi.alignment = 16 : i64},
                     %m: memref<1000x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xbf16>, memref<1024x4096xbf16>)
      outs(%d : memref<1000x1024xbf16>) mirrors(%m : memref<1000x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, epilogue = <store = registers>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @staged(%a: memref<1000x4096xbf16> {mepi.alignment = 16 : i64},
                  %b: memref<1024x4096xbf16> {mepi.alignment = 16 : i64},
                  %bias: memref<1024xbf16>,
                  %d: memref<1000x1024xbf16> {mepi.alignment = 16 : i64},
                  %m: memref<1000x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xbf16>, memref<1024x4096xbf16>)
      inputs(%bias as col : memref<1024xbf16>)
      outs(%d : memref<1000x1024xbf16>) mirrors(%m : memref<1000x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @swapped(%a: memref<16x4096xbf16> {mepi.alignment = 16 : i64},
                   %b: memref<1024x4096xbf16> {mepi.alignment = 16 : i64},
                   %d: memref<16x1024xbf16> {mepi.alignment = 16 : i64},
                   %m: memref<16x1024xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<16x4096xbf16>, memref<1024x4096xbf16>)
      outs(%d : memref<16x1024xbf16>) mirrors(%m : memref<16x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [16, 128, 64], mainloop = <stages = 12>, swapped = true>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @simt(%a: memref<100x64xbf16>, %b: memref<64x30xbf16>, %d: memref<100x30xbf16>,
                %m: memref<100x30xbf16>) {
  mepi.matmul ins(%a, %b : memref<100x64xbf16>, memref<64x30xbf16>)
      outs(%d : memref<100x30xbf16>) mirrors(%m : memref<100x30xbf16>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 48, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
