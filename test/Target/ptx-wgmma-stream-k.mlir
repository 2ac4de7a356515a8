// The stream-K wgmma kernel in PTX, 128 x 256 in clusters with TMA stores: the workspace
// follows the three TMA descriptors; a shared unit's partials go out as 16-byte global stores
// and its count is a device-scope atomic. ptxas assembles it without spills and without
// serializing the wgmmas (the walk's values are worked out in each role, after setmaxnreg).
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// The runtime links through nvJitLink, whose relocatable compilation serialized every wgmma of
// a first version (C7509: a u32 division by a runtime value became a subroutine call); ptxas
// alone had not.
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a" --mepi-link-cubin="arch=sm_90a output=%t.linked.cubin verbose=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINK --implicit-check-not="instructions are serialized"

// CHECK: .entry gemm_matmul_0(
// CHECK-NEXT: .param .align 64 .b8 gemm_matmul_0_param_0[128],
// CHECK-NEXT: .param .align 64 .b8 gemm_matmul_0_param_1[128],
// CHECK-NEXT: .param .align 64 .b8 gemm_matmul_0_param_2[128],
// CHECK-NEXT: .param .u64 .ptr .align 1 gemm_matmul_0_param_3,
// CHECK-DAG: mov.u32 {{.*}}, %nclusterid.x;
// CHECK-DAG: st.global.v4.{{[bf]}}32
// CHECK-DAG: atom.global.add.u32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// PTXAS: Compiling entry function 'gemm_matmul_0' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
// LINK: Compiling entry function 'gemm_matmul_0' for 'sm_90a'
// LINK: Used {{[0-9]+}} registers
func.func @gemm(%a: memref<4096x14336xbf16> {mepi.alignment = 16 : i64},
                %b: memref<4096x14336xbf16> {mepi.alignment = 16 : i64},
                %bias: memref<4096xbf16>, %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x14336xbf16>, memref<4096x14336xbf16>)
      inputs(%bias as row : memref<4096xbf16>) outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %bv: bf16, %row: index, %col: index):
    %x = arith.extf %bv : bf16 to f32
    %s = arith.addf %acc, %x : f32
    %r = arith.truncf %s : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
