// The Emitter's operations that need the NVVM dialect (kept out of Emitter.h, which every
// generator file includes).
#include "Emitter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::mepi;

void Emitter::fenceAsyncShared() {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}
