// Without the object that defines the external epilog function, nvJitLink's error names it.
// RUN: not mepi-opt %S/Inputs/external-gelu.mlir --mepi-lower-to-ptx --mepi-link-cubin="arch=sm_90a output=%t.cubin" -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: nvJitLink link failed
// CHECK: user_gelu
