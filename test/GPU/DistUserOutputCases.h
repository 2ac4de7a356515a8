// A user epilog's outputs (a matrix, a bitmask, row reductions) in distributed matmuls on
// several GPUs (DistUserOutputCases.cpp), for mepi-dist-tests' main (DistCorrectness.cpp).
#ifndef MEPI_TEST_GPU_DISTUSEROUTPUTCASES_H
#define MEPI_TEST_GPU_DISTUSEROUTPUTCASES_H

#include "DistTestSupport.h"

#include "mepi/DistributedMPI.h"

namespace disttest {
/// Runs every case on every rank; counts a case passed when it passed on all ranks.
void runUserOutputCases(int rank, int ranks, int device, CUstream stream, int &passed,
                        int &failed);
} // namespace disttest

#endif // MEPI_TEST_GPU_DISTUSEROUTPUTCASES_H
