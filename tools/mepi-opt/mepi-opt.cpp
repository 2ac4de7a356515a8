// mepi-opt: the opt-style driver over mepi's dialect, passes and lowering pipeline.
#include "Distributed/DistSchedule.h"
#include "Target/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::mepi::registerMepiDialects(registry);
  mlir::mepi::registerMepiPasses();
  mepi::dist::registerDistPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mepi optimizer and lowering driver\n", registry));
}
