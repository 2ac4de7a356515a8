// One place that registers what mepi needs: dialects, interfaces, translations, passes.
#ifndef MEPI_TARGET_REGISTRATION_H
#define MEPI_TARGET_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace mepi {
/// The mepi dialect, the upstream dialects the lowering produces, their to-LLVM conversion
/// interfaces, the NVVM target and the LLVM IR translations PTX emission needs.
void registerMepiDialects(DialectRegistry &registry);
/// mepi's passes and pipelines, and the upstream passes a user needs to replay any stage.
void registerMepiPasses();
} // namespace mepi
} // namespace mlir

#endif // MEPI_TARGET_REGISTRATION_H
