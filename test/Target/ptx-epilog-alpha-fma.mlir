// alpha's product and the built-in epilogs' first addition (the bias, beta C) are marked
// fastmath<contract> (emitEpilogValues, buildBuiltinEpilog), so together they are one
// fma.rn.f32 an element: alpha * acc + bias rounded once. An addition the user's region
// leaves without the flag stays a separate multiply and add, each rounded (add.rn: ptxas
// may not fuse them).
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: .entry contracted_matmul_0(
// CHECK-NOT: mul.{{(rn.)?}}f32
// CHECK: fma.rn.f32
// CHECK-NOT: mul.{{(rn.)?}}f32
// CHECK-LABEL: .entry separate_matmul_0(
// CHECK: mul.f32
// CHECK: add.rn.f32
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
func.func @contracted(%a: memref<256x128xbf16> {mepi.alignment = 16 : i64},
                      %b: memref<256x128xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                      %bias: memref<256xbf16>,
                      %d: memref<256x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<256x128xbf16>, memref<256x128xbf16>) alpha(%alpha)
      inputs(%bias as col : memref<256xbf16>)
      outs(%d : memref<256x256xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 2>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf fastmath<contract> : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @separate(%a: memref<256x128xbf16> {mepi.alignment = 16 : i64},
                    %b: memref<256x128xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                    %bias: memref<256xbf16>,
                    %d: memref<256x256xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<256x128xbf16>, memref<256x128xbf16>) alpha(%alpha)
      inputs(%bias as col : memref<256xbf16>)
      outs(%d : memref<256x256xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 2>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
