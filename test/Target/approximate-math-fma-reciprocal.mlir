// Divisions by 1 + 2^t (a sigmoid's; GELU and SiLU divide so) with fastmath<afn>: one in three,
// in program order, multiplies by a reciprocal from Newton's method on the FMA pipe (the seed
// from y's bits, three fma steps) so the epilog does not wait on MUFU alone; the others become
// div.approx.ftz.f32. A division by anything else, or by 1 + 2^t from an exp2 without afn, is
// never moved.
// RUN: mepi-opt %s --pass-pipeline="builtin.module(gpu.module(mepi-approximate-math))" | FileCheck %s

// CHECK-LABEL: gpu.func @sigmoids
// CHECK: %[[E:.*]] = llvm.inline_asm {{.*}}"ex2.approx.ftz.f32 $0, $1;"
// CHECK: %[[DEN:.*]] = arith.addf %{{.*}}, %[[E]]
// CHECK: llvm.inline_asm {{.*}}"div.approx.ftz.f32 $0, $1, $2;", "=f,f,f" %[[X:[a-z0-9_]+]], %[[DEN]]
// CHECK: llvm.inline_asm {{.*}}"div.approx.ftz.f32 $0, $1, $2;", "=f,f,f" %[[T:[a-z0-9_]+]], %[[DEN]]
// CHECK-NOT: div.approx
// CHECK: %[[Y:.*]] = arith.minnumf %[[DEN]], %{{.*}} : f32
// CHECK: %[[BITS:.*]] = arith.bitcast %[[Y]] : f32 to i32
// CHECK: %[[SEED:.*]] = arith.subi %{{.*}}, %[[BITS]] : i32
// CHECK: %[[R0:.*]] = arith.bitcast %[[SEED]] : i32 to f32
// CHECK: %[[NEG:.*]] = arith.negf %[[Y]] : f32
// CHECK: %[[E0:.*]] = math.fma %[[NEG]], %[[R0]], %{{.*}} : f32
// CHECK: %[[R1:.*]] = math.fma %[[R0]], %[[E0]], %[[R0]] : f32
// CHECK: %[[E1:.*]] = math.fma %[[NEG]], %[[R1]], %{{.*}} : f32
// CHECK: %[[R2:.*]] = math.fma %[[R1]], %[[E1]], %[[R1]] : f32
// CHECK: %[[E2:.*]] = math.fma %[[NEG]], %[[R2]], %{{.*}} : f32
// CHECK: %[[R3:.*]] = math.fma %[[R2]], %[[E2]], %[[R2]] : f32
// CHECK: arith.mulf %[[X]], %[[R3]] : f32
// CHECK: llvm.inline_asm {{.*}}"div.approx.ftz.f32 $0, $1, $2;", "=f,f,f" %[[X]], %[[T]]
// CHECK-NOT: math.fma
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @accurate_exp2
// CHECK-NOT: math.fma
// CHECK-COUNT-3: div.approx.ftz.f32
// CHECK-NOT: math.fma
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sigmoids(%x: f32, %t: f32, %out: memref<4xf32>) kernel {
      %one = arith.constant 1.0 : f32
      %e = math.exp2 %t fastmath<afn> : f32
      %den = arith.addf %one, %e : f32
      %y0 = arith.divf %x, %den fastmath<afn> : f32
      %y1 = arith.divf %t, %den fastmath<afn> : f32
      %y2 = arith.divf %x, %den fastmath<afn> : f32
      %y3 = arith.divf %x, %t fastmath<afn> : f32
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      %i3 = arith.constant 3 : index
      memref.store %y0, %out[%i0] : memref<4xf32>
      memref.store %y1, %out[%i1] : memref<4xf32>
      memref.store %y2, %out[%i2] : memref<4xf32>
      memref.store %y3, %out[%i3] : memref<4xf32>
      gpu.return
    }
    gpu.func @accurate_exp2(%x: f32, %t: f32, %out: memref<3xf32>) kernel {
      %one = arith.constant 1.0 : f32
      %e = math.exp2 %t : f32
      %den = arith.addf %one, %e : f32
      %y0 = arith.divf %x, %den fastmath<afn> : f32
      %y1 = arith.divf %t, %den fastmath<afn> : f32
      %y2 = arith.divf %one, %den fastmath<afn> : f32
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      memref.store %y0, %out[%i0] : memref<3xf32>
      memref.store %y1, %out[%i1] : memref<3xf32>
      memref.store %y2, %out[%i2] : memref<3xf32>
      gpu.return
    }
  }
}
