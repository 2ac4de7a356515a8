// A grouped matmul's scalar maximum (an amax of D): the tiles' count is on the device, so no
// slice can tell it arrives last; thread 0 of each slice's consumer combines its threads' slots
// and takes the maximum with the output atomically, on the f32 bits (signed max for values
// >= 0, unsigned min below 0), the runtime having set it to -inf. No workspace arrivals.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// CHECK-LABEL: .entry amax_matmul_0
// CHECK-DAG: atom.global.min.u32
// CHECK-DAG: atom.global.max.s32
// CHECK-NOT: atom.global.add.u32
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @amax(%x: memref<1000x528xbf16> {mepi.alignment = 16 : i64},
                %w: memref<5x264x528xbf16> {mepi.alignment = 16 : i64},
                %g: memref<5xi32>, %d: memref<1000x264xbf16> {mepi.alignment = 16 : i64},
                %amax: memref<f32>) {
  mepi.matmul ins(%x, %w : memref<1000x528xbf16>, memref<5x264x528xbf16>)
      groups(%g ends : memref<5xi32>)
      outs(%d : memref<1000x264xbf16>) reduce(%amax as scalar max : memref<f32>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %group: index):
    %t = arith.truncf %acc : f32 to bf16
    %a = math.absf %acc : f32
    mepi.yield %t, %a : bf16, f32
  }
  return
}
