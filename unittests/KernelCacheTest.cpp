// The in-memory kernel cache: one compilation per problem, also under concurrency.
#include "Runtime/KernelCache.h"

#include <gtest/gtest.h>

#include <thread>

using namespace mepi::runtime;

namespace {
MatmulProblem smallProblem(int64_t m, const char *epilog = "RELU") {
  MatmulProblem p;
  p.a = {ElementType::F16, {m, 32}, rowMajorStrides({m, 32})};
  p.b = {ElementType::F16, {32, 16}, rowMajorStrides({32, 16})};
  p.d = {ElementType::F16, {m, 16}, rowMajorStrides({m, 16})};
  p.epilog = epilog;
  return p;
}
} // namespace

TEST(KernelCache, SameProblemCompilesOnce) {
  KernelCache cache;
  auto first = cache.getOrCompile(smallProblem(8), "sm_90a");
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  auto second = cache.getOrCompile(smallProblem(8), "sm_90a");
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(cache.compilations(), 1u);
  EXPECT_EQ(cache.hits(), 1u);
}

TEST(KernelCache, DifferentProblemsOrArchsCompileSeparately) {
  KernelCache cache;
  auto a = cache.getOrCompile(smallProblem(8), "sm_90a");
  auto b = cache.getOrCompile(smallProblem(9), "sm_90a");
  auto c = cache.getOrCompile(smallProblem(8, "GELU"), "sm_90a");
  auto d = cache.getOrCompile(smallProblem(8), "sm_80");
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(cache.compilations(), 4u);
  EXPECT_NE(a->get(), b->get());
  EXPECT_NE(a->get(), c->get());
  EXPECT_NE(a->get(), d->get());
}

TEST(KernelCache, ConcurrentRequestsCompileOnce) {
  KernelCache cache;
  std::vector<const CompiledKernel *> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      auto kernel = cache.getOrCompile(smallProblem(33), "sm_90a");
      if (kernel)
        seen[i] = kernel->get();
      else
        llvm::consumeError(kernel.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(cache.compilations(), 1u);
  for (const CompiledKernel *k : seen)
    EXPECT_EQ(k, seen[0]);
  EXPECT_NE(seen[0], nullptr);
}

TEST(KernelCache, FailuresAreReportedAndNotCached) {
  KernelCache cache;
  MatmulProblem bad = smallProblem(8);
  bad.b.shape = {31, 16};
  bad.b.strides = rowMajorStrides(bad.b.shape);
  auto first = cache.getOrCompile(bad, "sm_90a");
  ASSERT_FALSE(bool(first));
  EXPECT_NE(llvm::toString(first.takeError()).find("agree on K"), std::string::npos);
  // Planning rejects it before the cache: nothing compiled, nothing stored.
  EXPECT_EQ(cache.compilations(), 0u);
  auto unknownArch = cache.getOrCompile(smallProblem(8), "sm_bogus");
  ASSERT_FALSE(bool(unknownArch));
  EXPECT_EQ(llvm::toString(unknownArch.takeError()),
            "expected a target arch such as 'sm_90a', got 'sm_bogus'");
  auto again = cache.getOrCompile(smallProblem(8), "sm_bogus");
  ASSERT_FALSE(bool(again));
  llvm::consumeError(again.takeError());
  EXPECT_EQ(cache.compilations(), 2u) << "a failed compilation must not be cached";
}

TEST(KernelCache, KeyDependsOnEveryInput) {
  std::string base = kernelCacheKey("ir", "sm_90a", {});
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(base, kernelCacheKey("ir", "sm_90a", {}));
  EXPECT_NE(base, kernelCacheKey("ir2", "sm_90a", {}));
  EXPECT_NE(base, kernelCacheKey("ir", "sm_80", {}));
  mlir::mepi::DeviceObject object{mlir::mepi::DeviceObject::Kind::PTX, "f.ptx", {'x'}};
  EXPECT_NE(base, kernelCacheKey("ir", "sm_90a", {object}));
}
