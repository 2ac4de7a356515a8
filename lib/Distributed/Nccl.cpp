// dlopen of NCCL (Nccl.h).
#include "Distributed/Nccl.h"

#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>
#include <string>

using namespace mepi::dist::detail;

namespace {
struct Loaded {
  Nccl nccl;
  std::string error;
};

Loaded load() {
  Loaded loaded;
  void *library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    loaded.error = llvm::formatv("cannot load NCCL (libnccl.so.2), which distributed matmuls "
                                 "need: {0}",
                                 why ? why : "unknown error");
    return loaded;
  }
#define MEPI_RESOLVE_NCCL_SYMBOL(name)                                                         \
  if (void *fn = dlsym(library, #name))                                                        \
    loaded.nccl.name = reinterpret_cast<decltype(loaded.nccl.name)>(fn);                       \
  else {                                                                                       \
    loaded.error = "NCCL lacks " #name;                                                        \
    return loaded;                                                                             \
  }
  MEPI_NCCL_SYMBOLS(MEPI_RESOLVE_NCCL_SYMBOL)
#undef MEPI_RESOLVE_NCCL_SYMBOL
  loaded.nccl.ncclGetVersion(&loaded.nccl.version);
  return loaded;
}
} // namespace

llvm::Expected<const Nccl &> mepi::dist::detail::nccl() {
  static const Loaded loaded = load();
  if (!loaded.error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), loaded.error);
  return loaded.nccl;
}

llvm::Error mepi::dist::detail::checkNccl(ncclResult_t result, llvm::StringRef what) {
  if (result == ncclSuccess)
    return llvm::Error::success();
  const char *text = "";
  if (auto lib = nccl())
    text = lib->ncclGetErrorString(result);
  else
    llvm::consumeError(lib.takeError());
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv("{0}: {1} (ncclResult {2})", what, text,
                                               int(result)));
}
