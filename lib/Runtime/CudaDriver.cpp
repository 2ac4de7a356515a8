// dlopen of libcuda and resolution of the driver symbol table.
#include "Runtime/CudaDriver.h"
#include "Runtime/ErrorCodes.h"

#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <dlfcn.h>
#include <mutex>

using namespace mepi::runtime;

namespace {
struct LoadedDriver {
  CudaDriver driver;
  std::string error; // empty when loaded
};

LoadedDriver load() {
  LoadedDriver loaded;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    loaded.error = llvm::formatv("cannot load the CUDA driver (libcuda.so.1): {0}",
                                 why ? why : "unknown error");
    return loaded;
  }
  CudaDriver &d = loaded.driver;
  // Resolve the exact symbol cuda.h declares (its macros give the versioned name, e.g.
  // cuMemAlloc_v2): asking cuGetProcAddress for the base name at CUDA_VERSION can return a newer
  // ABI than the header's prototype (cuCtxSynchronize_v2 takes a context in CUDA 13).
#define MEPI_CUDA_STRINGIFY(x) #x
#define MEPI_CUDA_SYMBOL_NAME(x) MEPI_CUDA_STRINGIFY(x)
#define MEPI_RESOLVE_CUDA_SYMBOL(name)                                                         \
  {                                                                                            \
    void *fn = dlsym(library, MEPI_CUDA_SYMBOL_NAME(name));                                    \
    if (!fn) {                                                                                 \
      loaded.error = "the CUDA driver lacks " MEPI_CUDA_SYMBOL_NAME(name);                     \
      return loaded;                                                                           \
    }                                                                                          \
    d.name = reinterpret_cast<decltype(d.name)>(fn);                                           \
  }
  MEPI_CUDA_DRIVER_SYMBOLS(MEPI_RESOLVE_CUDA_SYMBOL)
#undef MEPI_RESOLVE_CUDA_SYMBOL
#undef MEPI_CUDA_SYMBOL_NAME
#undef MEPI_CUDA_STRINGIFY

  if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    const char *name = nullptr;
    d.cuGetErrorName(r, &name);
    loaded.error = llvm::formatv("cuInit failed: {0} ({1})", name ? name : "?", int(r));
    return loaded;
  }
  d.cuDriverGetVersion(&d.version);
  return loaded;
}
} // namespace

namespace {
std::atomic<const CudaDriver *> testingDriver{nullptr};
} // namespace

void mepi::runtime::setCudaDriverForTesting(const CudaDriver *driver) { testingDriver = driver; }

llvm::Expected<const CudaDriver &> mepi::runtime::cudaDriver() {
  if (const CudaDriver *driver = testingDriver.load())
    return *driver;
  static const LoadedDriver loaded = load();
  if (!loaded.error.empty()) // a CUDA error for the API's status (ApiErrors.h)
    return llvm::createStringError(
        std::error_code(static_cast<int>(CUDA_ERROR_NOT_INITIALIZED), cudaCategory()),
        loaded.error);
  return loaded.driver;
}

llvm::Error mepi::runtime::checkCuda(CUresult result, llvm::StringRef what) {
  if (result == CUDA_SUCCESS)
    return llvm::Error::success();
  const char *name = "CUDA_ERROR", *text = "";
  if (auto driver = cudaDriver()) {
    driver->cuGetErrorName(result, &name);
    driver->cuGetErrorString(result, &text);
  } else {
    llvm::consumeError(driver.takeError());
  }
  return llvm::createStringError(
      std::error_code(static_cast<int>(result), cudaCategory()),
      llvm::formatv("{0} failed: {1} ({2}): {3}", what, name, int(result), text).str());
}
