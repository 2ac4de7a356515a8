// libFuzzer target over what a user hands mepi as text: a user epilog's MLIR and a kernel
// configuration (#mepi.kernel_config<...>), through the planner (parse, the operation
// allow-list and size bound, inlining, verification), without compiling to PTX.
//
// An input is the configuration on its first line (empty: the heuristic's) and the epilog's
// MLIR after it; the epilog is @f of a bf16 problem 40 x 56 x 24 with a bf16 row input and an
// f32 col input, so its expected type is (f32, bf16, f32, index, index) -> bf16.
#include "Runtime/Planner.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mepi::runtime;

namespace {
OperandLayout layout(ElementType type, std::vector<int64_t> shape) {
  return OperandLayout{type, shape, rowMajorStrides(shape)};
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  size_t newline = text.find('\n');
  MatmulProblem p;
  p.a = layout(ElementType::BF16, {40, 24});
  p.b = layout(ElementType::BF16, {24, 56});
  p.d = layout(ElementType::BF16, {40, 56});
  p.kernelConfig = text.substr(0, newline);
  p.userEpilog = UserEpilogSource{newline == std::string::npos ? "" : text.substr(newline + 1),
                                  "f", {}, false};
  p.userInputs = {{layout(ElementType::BF16, {40}), InputKind::Row},
                  {layout(ElementType::F32, {56}), InputKind::Col}};
  llvm::Expected<std::string> planned = planModule(p);
  if (!planned)
    llvm::consumeError(planned.takeError()); // a refusal is an answer; a crash is the finding
  return 0;
}
