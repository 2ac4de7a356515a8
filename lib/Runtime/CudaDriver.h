// The CUDA driver API through one dlopen'ed symbol table, so that mepi loads, plans and compiles
// on machines without a driver; only launching needs libcuda.
#ifndef MEPI_RUNTIME_CUDADRIVER_H
#define MEPI_RUNTIME_CUDADRIVER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cuda.h>

namespace mepi::runtime {

// Each entry names the API function without its version suffix; cuda.h's macros map the member
// (and the symbol looked up) to the versioned declaration, e.g. cuMemAlloc -> cuMemAlloc_v2.
#define MEPI_CUDA_DRIVER_SYMBOLS(X)                                                            \
  X(cuInit)                                                                                    \
  X(cuDriverGetVersion)                                                                        \
  X(cuGetErrorName)                                                                            \
  X(cuGetErrorString)                                                                          \
  X(cuDeviceGet)                                                                               \
  X(cuDeviceGetCount)                                                                          \
  X(cuDeviceGetAttribute)                                                                      \
  X(cuDeviceGetName)                                                                           \
  X(cuDevicePrimaryCtxRetain)                                                                  \
  X(cuDevicePrimaryCtxRelease)                                                                 \
  X(cuCtxGetCurrent)                                                                           \
  X(cuCtxSetCurrent)                                                                           \
  X(cuCtxGetDevice)                                                                            \
  X(cuCtxSynchronize)                                                                          \
  X(cuModuleLoadData)                                                                          \
  X(cuModuleLoadDataEx)                                                                        \
  X(cuModuleUnload)                                                                            \
  X(cuModuleGetFunction)                                                                       \
  X(cuFuncSetAttribute)                                                                        \
  X(cuLaunchKernel)                                                                            \
  X(cuLaunchKernelEx)                                                                          \
  X(cuOccupancyMaxActiveClusters)                                                              \
  X(cuTensorMapEncodeTiled)                                                                    \
  X(cuPointerGetAttribute)                                                                     \
  X(cuMemAlloc)                                                                                \
  X(cuMemFree)                                                                                 \
  X(cuMemcpyHtoD)                                                                              \
  X(cuMemcpyDtoH)                                                                              \
  X(cuMemcpyDtoDAsync)                                                                         \
  X(cuMemcpy2DAsync)                                                                           \
  X(cuMemsetD8)                                                                                \
  X(cuMemsetD8Async)                                                                           \
  X(cuMemsetD32Async)                                                                          \
  X(cuStreamCreate)                                                                            \
  X(cuStreamDestroy)                                                                           \
  X(cuStreamSynchronize)                                                                       \
  X(cuStreamBeginCapture)                                                                      \
  X(cuStreamEndCapture)                                                                        \
  X(cuGraphInstantiate)                                                                        \
  X(cuGraphLaunch)                                                                             \
  X(cuGraphExecDestroy)                                                                        \
  X(cuGraphDestroy)                                                                            \
  X(cuEventCreate)                                                                             \
  X(cuEventDestroy)                                                                            \
  X(cuEventRecord)                                                                             \
  X(cuEventSynchronize)                                                                        \
  X(cuEventElapsedTime)                                                                        \
  X(cuStreamWaitEvent)                                                                         \
  X(cuStreamWriteValue32)                                                                      \
  X(cuStreamWaitValue32)                                                                       \
  X(cuIpcGetMemHandle)                                                                         \
  X(cuIpcOpenMemHandle)                                                                        \
  X(cuIpcCloseMemHandle)

struct CudaDriver {
#define MEPI_DECLARE_CUDA_SYMBOL(name) decltype(&::name) name = nullptr;
  MEPI_CUDA_DRIVER_SYMBOLS(MEPI_DECLARE_CUDA_SYMBOL)
#undef MEPI_DECLARE_CUDA_SYMBOL
  int version = 0; ///< cuDriverGetVersion, e.g. 13000
};

/// The driver, loaded and initialised once per process (thread-safe). Fails with the dlopen or
/// cuInit error where there is no driver or no GPU.
llvm::Expected<const CudaDriver &> cudaDriver();

/// Tests only: makes cudaDriver() return `driver` until called again with nullptr (a driver
/// that fails on demand, to test the runtime's error paths without a GPU). Set it before any
/// thread asks for the driver.
void setCudaDriverForTesting(const CudaDriver *driver);

/// Success, or an error naming `what` with the CUDA error name, code and description.
llvm::Error checkCuda(CUresult result, llvm::StringRef what);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_CUDADRIVER_H
