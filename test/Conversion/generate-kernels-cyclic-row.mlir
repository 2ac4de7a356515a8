// A cyclic row input ([P], P dividing M) is read at row mod P: one bias for every element of a
// batch folded into D's rows. SIMT loads it per element; the wgmma epilogs load it once per
// slice at the thread's rows (register stores and the staged walk alike), a remainder by the
// constant P after rows past M were sent to row 0.
// RUN: mepi-opt %s --split-input-file --mepi-generate-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @simt_matmul_0(
// CHECK-SAME: %[[R:[a-z0-9_]+]]: memref<8xf32>
// CHECK-SAME: %[[D:[a-z0-9_]+]]: memref<24x16xf32>
// CHECK-DAG: %[[TY:[a-z0-9_]+]] = gpu.thread_id y
// CHECK-DAG: %[[BY:[a-z0-9_]+]] = gpu.block_id y
// CHECK-DAG: %[[ROW0:[a-z0-9_]+]] = arith.muli %[[BY]], %{{[a-z0-9_]+}} : index
// CHECK-DAG: %[[ROW:[a-z0-9_]+]] = arith.addi %[[ROW0]], %[[TY]] : index
// CHECK: %[[P:[a-z0-9_]+]] = arith.constant 8 : index
// CHECK-NEXT: %[[WITHIN:[a-z0-9_]+]] = arith.remui %[[ROW]], %[[P]] : index
// CHECK: memref.load %[[R]][%[[WITHIN]]] : memref<8xf32>
// CHECK: memref.store %{{[a-z0-9_]+}}, %[[D]][%[[ROW]], %{{[a-z0-9_]+}}] : memref<24x16xf32>
func.func @simt(%a: memref<24x32xf32>, %b: memref<32x16xf32>, %r: memref<8xf32>,
                %d: memref<24x16xf32>) {
  mepi.matmul ins(%a, %b : memref<24x32xf32>, memref<32x16xf32>)
      inputs(%r as cyclic_row : memref<8xf32>) outs(%d : memref<24x16xf32>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 16, 1]>} epilog {
  ^bb0(%acc: f32, %ri: f32, %row: index, %col: index):
    %x = arith.addf %acc, %ri : f32
    mepi.yield %x : f32
  }
  return
}

// -----

// CHECK-LABEL: gpu.func @registers_matmul_0(
// CHECK-SAME: %[[R:[a-z0-9_]+]]: memref<448xbf16>
// CHECK: %[[P:[a-z0-9_]+]] = arith.constant 448 : i32
// CHECK: %[[WITHIN:[a-z0-9_]+]] = arith.remui %{{[a-z0-9_]+}}, %[[P]] : i32
// CHECK: %[[AT:[a-z0-9_]+]] = arith.index_cast{{(ui)?}} %[[WITHIN]]
// CHECK: memref.load %[[R]][%[[AT]]] : memref<448xbf16>
func.func @registers(%a: memref<1344x1024xbf16>, %b: memref<4000x1024xbf16>,
                     %bias: memref<448xbf16>,
                     %d: memref<1344x4000xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1344x1024xbf16>, memref<4000x1024xbf16>)
      inputs(%bias as cyclic_row : memref<448xbf16>) outs(%d : memref<1344x4000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = registers>>} epilog {
  ^bb0(%acc: f32, %bv: bf16, %row: index, %col: index):
    %x = arith.extf %bv : bf16 to f32
    %s = arith.addf %acc, %x : f32
    %r = arith.truncf %s : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

// CHECK-LABEL: gpu.func @staged_matmul_0(
// CHECK-SAME: %[[R:[a-z0-9_]+]]: memref<448xbf16>
// CHECK: %[[P:[a-z0-9_]+]] = arith.constant 448 : i32
// CHECK: %[[WITHIN:[a-z0-9_]+]] = arith.remui %{{[a-z0-9_]+}}, %[[P]] : i32
// CHECK: %[[AT:[a-z0-9_]+]] = arith.index_cast{{(ui)?}} %[[WITHIN]]
// CHECK: memref.load %[[R]][%[[AT]]] : memref<448xbf16>
func.func @staged(%a: memref<1344x1024xbf16>, %b: memref<4000x1024xbf16>,
                  %bias: memref<448xbf16>, %d: memref<1344x4000xbf16>) {
  mepi.matmul ins(%a, %b : memref<1344x1024xbf16>, memref<4000x1024xbf16>)
      inputs(%bias as cyclic_row : memref<448xbf16>) outs(%d : memref<1344x4000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>} epilog {
  ^bb0(%acc: f32, %bv: bf16, %row: index, %col: index):
    %x = arith.extf %bv : bf16 to f32
    %s = arith.addf %acc, %x : f32
    %r = arith.truncf %s : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
