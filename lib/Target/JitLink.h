// Links generated PTX with user device objects into a cubin through nvJitLink.
#ifndef MEPI_TARGET_JITLINK_H
#define MEPI_TARGET_JITLINK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::mepi {

/// A device object given by the user: PTX, LTO-IR (nvcc -dlto, NVRTC, Numba), cubin or fatbin.
struct DeviceObject {
  enum class Kind { PTX, LTOIR, Cubin, Fatbin };
  Kind kind;
  std::string name;        ///< shown in nvJitLink's logs
  std::vector<char> bytes; ///< PTX text or binary image
};

/// The linked image and nvJitLink's info log.
struct LinkedCubin {
  std::vector<char> cubin;
  std::string infoLog;
};

/// Links `ptx` (the generated kernels) with `objects` for `arch` (e.g. "sm_90a"). Needs no GPU.
/// `-lto` is passed only when an LTO-IR object is present: with PTX alone nvJitLink rejects it.
/// Errors carry nvJitLink's result code and its error and info logs. `verbose` asks for the
/// compiler's report in the info log (registers, spills, performance notes such as wgmma
/// serialization, which nvJitLink's relocatable compilation can differ on from ptxas).
llvm::Expected<LinkedCubin> linkCubin(llvm::StringRef ptx, llvm::ArrayRef<DeviceObject> objects,
                                      llvm::StringRef arch, bool verbose = false);

/// Whether a verbose info log reports a stack frame or spills ("216 bytes stack frame, 428
/// bytes spill stores, ..."), for any function.
bool reportsSpills(llvm::StringRef infoLog);

/// nvJitLink's version as "major.minor" (part of the kernel cache key).
std::string jitLinkVersion();

} // namespace mlir::mepi

#endif // MEPI_TARGET_JITLINK_H
