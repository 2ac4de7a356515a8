// The split-K wgmma kernel in PTX: the workspace is a plain 8-byte pointer parameter after the
// two TMA descriptors; partials go out as 16-byte global stores, the count is a device-scope
// atomic between two membar.gl, and ptxas assembles the 128 x 256 tile without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CHECK: .entry gemm_matmul_0(
// CHECK-NEXT: .param .align 64 .b8 gemm_matmul_0_param_0[128],
// CHECK-NEXT: .param .align 64 .b8 gemm_matmul_0_param_1[128],
// CHECK-NEXT: .param .u64 .ptr .align 1 gemm_matmul_0_param_2,
// CHECK-DAG: st.global.v4.{{[bf]}}32
// CHECK-DAG: membar.gl;
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: ld.global.v4.{{[bf]}}32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16

// PTXAS: Compiling entry function 'gemm_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @gemm(%a: memref<128x4096xbf16> {mepi.alignment = 16 : i64},
                %b: memref<1024x4096xbf16> {mepi.alignment = 16 : i64}, %d: memref<128x1024xbf16>) {
  mepi.matmul ins(%a, %b : memref<128x4096xbf16>, memref<1024x4096xbf16>) outs(%d : memref<128x1024xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, scheduler = <split_k, splits = 8>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
