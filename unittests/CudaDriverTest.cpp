// The dlopen'ed driver table: without a driver, an error that says so (and nothing crashes).
#include "Runtime/CudaDriver.h"

#include <gtest/gtest.h>

using namespace mepi::runtime;

TEST(CudaDriver, LoadsOrExplainsWhyNot) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (driver) {
    EXPECT_NE(driver->cuLaunchKernel, nullptr);
    EXPECT_GE(driver->version, 12000);
    return;
  }
  std::string message = llvm::toString(driver.takeError());
  EXPECT_TRUE(message.find("cannot load the CUDA driver") != std::string::npos ||
              message.find("cuInit failed") != std::string::npos)
      << message;
}

TEST(CudaDriver, ErrorsNameTheCallAndTheCode) {
  llvm::Error error = checkCuda(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc(d)");
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("cuMemAlloc(d) failed"), std::string::npos) << message;
  EXPECT_NE(message.find("(1)"), std::string::npos) << message;
  EXPECT_FALSE(checkCuda(CUDA_SUCCESS, "anything"));
}
