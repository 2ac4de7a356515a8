// Attributes of the mepi dialect: enum printing and kernel configuration checks.
#include "mepi/IR/MepiAttrs.h"
#include "mepi/IR/MepiDialect.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mepi;

#include "mepi/IR/MepiEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mepi/IR/MepiAttrs.cpp.inc"

LogicalResult KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       KernelStrategy strategy, int64_t tileM, int64_t tileN,
                                       int64_t tileK) {
  if (tileM <= 0 || tileN <= 0 || tileK <= 0)
    return emitError() << "expected positive tile sizes, got [" << tileM << ", " << tileN << ", "
                       << tileK << "]";
  // A SIMT block runs one thread per output element of its tile; CUDA caps a block at 1024.
  if (strategy == KernelStrategy::Simt && tileM * tileN > 1024)
    return emitError() << "expected at most 1024 threads per simt block, got " << tileM * tileN;
  return success();
}

void MepiDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mepi/IR/MepiAttrs.cpp.inc"
      >();
}
