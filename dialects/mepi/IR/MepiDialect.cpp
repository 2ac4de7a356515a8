// Registration of the mepi dialect's operations and attributes.
#include "mepi/IR/MepiDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mepi/IR/MepiAttrs.h"
#include "mepi/IR/MepiDistOps.h"
#include "mepi/IR/MepiOps.h"

using namespace mlir;
using namespace mlir::mepi;

#include "mepi/IR/MepiOpsDialect.cpp.inc"

void MepiDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mepi/IR/MepiOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "mepi/IR/MepiDistOps.cpp.inc"
      >();
  registerAttributes();
}
