// NCCL, loaded at run time (dlopen of libnccl.so.2), so that libmepi needs it only for
// distributed matmuls: the symbols mepi calls, resolved once.
#ifndef MEPI_DISTRIBUTED_NCCL_H
#define MEPI_DISTRIBUTED_NCCL_H

#include <nccl.h>

#include "llvm/Support/Error.h"

namespace mepi::dist::detail {

#define MEPI_NCCL_SYMBOLS(X)                                                                   \
  X(ncclGetVersion)                                                                            \
  X(ncclGetUniqueId)                                                                           \
  X(ncclCommInitRank)                                                                          \
  X(ncclCommDestroy)                                                                           \
  X(ncclGetErrorString)                                                                        \
  X(ncclAllGather)                                                                             \
  X(ncclAllReduce)                                                                             \
  X(ncclReduceScatter)                                                                         \
  X(ncclReduce)                                                                                \
  X(ncclBroadcast)                                                                             \
  X(ncclGroupStart)                                                                            \
  X(ncclGroupEnd)

struct Nccl {
#define MEPI_DECLARE_NCCL_SYMBOL(name) decltype(&::name) name = nullptr;
  MEPI_NCCL_SYMBOLS(MEPI_DECLARE_NCCL_SYMBOL)
#undef MEPI_DECLARE_NCCL_SYMBOL
  int version = 0;
};

/// The loaded library, or why it could not be loaded.
llvm::Expected<const Nccl &> nccl();

/// An error "what: NCCL's message (code)" unless `result` is ncclSuccess.
llvm::Error checkNccl(ncclResult_t result, llvm::StringRef what);

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_NCCL_H
