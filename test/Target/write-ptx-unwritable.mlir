// mepi-write-ptx reports an output file that cannot be opened instead of dropping the PTX.
// RUN: not mepi-opt %s --mepi-write-ptx="output=%t.missing/out.ptx" -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: cannot write PTX to '{{.*}}.missing/out.ptx': {{.+}}
module attributes {gpu.container_module} {
  gpu.binary @mepi_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A.target sm_90a\0A">]
}
