// The distributed matmul's backward epilogs and bias gradients on several GPUs
// (DistBackwardCases.cpp), for mepi-dist-tests' main (DistCorrectness.cpp).
#ifndef MEPI_TEST_GPU_DISTBACKWARDCASES_H
#define MEPI_TEST_GPU_DISTBACKWARDCASES_H

#include "DistTestSupport.h"

#include "mepi/DistributedMPI.h"

namespace disttest {
/// Runs every case on every rank; counts a case passed when it passed on all ranks.
void runBackwardCases(int rank, int ranks, int device, CUstream stream, int &passed,
                      int &failed);
} // namespace disttest

#endif // MEPI_TEST_GPU_DISTBACKWARDCASES_H
