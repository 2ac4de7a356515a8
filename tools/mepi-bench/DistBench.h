// mepi-bench --dist, launched with `mpirun -np P`: tensor-parallel MLP layers on P GPUs, mepi's
// distributed matmul (local GEMMs overlapped with copy-engine exchanges, mepi/Distributed.h)
// against the unfused sequence of NCCL collective and cuBLASLt GEMM, in one run: all-gather +
// GEMM (column-linear with sequence parallelism), GEMM + reduce-scatter and GEMM + all-reduce
// (row-linear). Efficiency is each one's local GEMM alone over the whole operation. Built when
// MPI is found (MEPI_HAVE_MPI).
#ifndef MEPI_TOOLS_DISTBENCH_H
#define MEPI_TOOLS_DISTBENCH_H

#include "BenchSupport.h"

namespace bench {
/// Runs the distributed set (MPI_Init/Finalize inside); returns the exit status.
int runDistBench(int argc, char **argv);
} // namespace bench

#endif // MEPI_TOOLS_DISTBENCH_H
