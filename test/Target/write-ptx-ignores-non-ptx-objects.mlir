// Only objects in assembly (PTX) form count: a gpu.binary holding just a cubin is an error.
// RUN: not mepi-opt %s --mepi-write-ptx 2>&1 | FileCheck %s

// CHECK: error: expected gpu.binary objects in PTX form
module attributes {gpu.container_module} {
  gpu.binary @mepi_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "\7FELF">]
}
