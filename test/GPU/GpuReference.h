// The GPU suite's fp64 reference for the matrix cases (GpuCases.h): D recomputed on the host.
#ifndef MEPI_TEST_GPU_GPUREFERENCE_H
#define MEPI_TEST_GPU_GPUREFERENCE_H

#include "GpuCases.h"

#include <random>
#include <string>
#include <vector>

namespace gputest {

/// Compares D (device bytes `out`) with the fp64 reference of case `c` on the host tensors; for
/// large problems on a sample of rows (first, last and random ones). Returns "" or the failure.
std::string compareWithReference(const Case &c, const HostTensor &a, const HostTensor &b,
                                 const HostTensor &cT, const HostTensor &bias,
                                 const std::vector<uint8_t> &out, std::mt19937 &rng,
                                 double &err);

} // namespace gputest

#endif // MEPI_TEST_GPU_GPUREFERENCE_H
