// An epilog calling external device code: the PTX declares and calls it, and nvJitLink resolves
// it from the user's LTO-IR (nvcc -dlto -ltoir of an extern "C" __device__ function).
// REQUIRES: nvcc
// RUN: %nvcc -arch=lto_90a -dlto -ltoir -rdc=true %S/Inputs/user-gelu.cu -o %t.ltoir
// RUN: mepi-opt %S/Inputs/external-gelu.mlir --mepi-lower-to-ptx="ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: mepi-opt %S/Inputs/external-gelu.mlir --mepi-lower-to-ptx --mepi-link-cubin="arch=sm_90a output=%t.cubin objects=%t.ltoir" -o /dev/null
// RUN: od -An -c -N4 %t.cubin | FileCheck %s
// PTX: .extern .func (.param .b32 func_retval0) user_gelu
// PTX: call.uni (retval0), user_gelu
// CHECK: 177   E   L   F
