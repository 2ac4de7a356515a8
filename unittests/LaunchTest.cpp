// Launch preparation without a GPU: the grid of a kernel against CUDA's limits, and kernels whose
// launch fields make no sense (as a damaged cache could hand over).
#include "Runtime/Launch.h"

#include <gtest/gtest.h>

using namespace mepi::runtime;

namespace {
/// A SIMT kernel of 16 x 16 tiles (one block per tile) for D [dShape], A and B to match.
struct SimtLaunch {
  CompiledKernel kernel;
  MatmulProblem problem;
  LaunchArguments args;
  SimtLaunch(std::vector<int64_t> dShape) {
    kernel.kernelName = "k";
    kernel.tile = {16, 16};
    kernel.block = {16, 16, 1};
    std::vector<int64_t> aShape = dShape, bShape = {16, dShape.back()};
    aShape.back() = 16;
    problem.a = {ElementType::F16, aShape, rowMajorStrides(aShape)};
    problem.b = {ElementType::F16, bShape, rowMajorStrides(bShape)};
    problem.d = {ElementType::F16, dShape, rowMajorStrides(dShape)};
    args.a = args.b = args.d = 0x10000;
  }
  std::string error() {
    llvm::Expected<std::unique_ptr<PreparedLaunch>> prepared =
        PreparedLaunch::create(nullptr, kernel, problem, args);
    return prepared ? "" : llvm::toString(prepared.takeError());
  }
};
} // namespace

TEST(Launch, GridWithinLimitsPrepares) {
  EXPECT_EQ(SimtLaunch({65535, 16, 16}).error(), "");
  EXPECT_EQ(SimtLaunch({16 * 65535, 16}).error(), "");
}

TEST(Launch, BatchBeyondTheGridLimitIsAnError) {
  // 65536 batch elements: one grid z-slice each, one more than CUDA takes.
  std::string why = SimtLaunch({65536, 16, 16}).error();
  EXPECT_NE(why.find("1 x 1 x 65536 blocks"), std::string::npos) << why;
  EXPECT_NE(why.find("exceeds CUDA's limits of 2147483647 x 65535 x 65535"), std::string::npos)
      << why;
}

TEST(Launch, RowsBeyondTheGridLimitAreAnError) {
  std::string why = SimtLaunch({16 * 65536, 16}).error();
  EXPECT_NE(why.find("1 x 65536 x 1 blocks"), std::string::npos) << why;
}

TEST(Launch, AnEmptyTileIsAnErrorNotADivisionByZero) {
  SimtLaunch launch({64, 64});
  launch.kernel.tile = {0, 16};
  EXPECT_EQ(launch.error(), "the kernel's tile is 0 x 16: expected positive sizes");
}
