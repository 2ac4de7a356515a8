// The in-memory kernel cache: one compilation per problem, also under concurrency.
#include "Runtime/KernelCache.h"

#include <gtest/gtest.h>

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

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
  EXPECT_NE(base, kernelCacheKey("ir", "sm_90a", {}, 114)); // another device's multiprocessors
  mlir::mepi::DeviceObject object{mlir::mepi::DeviceObject::Kind::PTX, "f.ptx", {'x'}};
  EXPECT_NE(base, kernelCacheKey("ir", "sm_90a", {object}));
}

namespace {
/// A fresh directory for one test's on-disk cache.
std::string tempCacheDir(const char *name) {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(name, dir));
  return std::string(dir);
}

std::string onlyEntry(const std::string &dir) {
  std::error_code ec;
  std::string found;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec))
    found = it->path();
  return found;
}
} // namespace

TEST(DiskCache, ASecondProcessReadsInsteadOfCompiling) {
  std::string dir = tempCacheDir("mepi-cache-reuse");
  {
    KernelCache first(dir);
    ASSERT_TRUE(bool(first.getOrCompile(smallProblem(8), "sm_90a")));
    EXPECT_EQ(first.compilations(), 1u);
  }
  std::string entry = onlyEntry(dir);
  ASSERT_FALSE(entry.empty());
  EXPECT_TRUE(llvm::sys::fs::exists(entry + "/manifest.json"));
  KernelCache second(dir); // an empty memory cache, as in a new process
  auto kernel = second.getOrCompile(smallProblem(8), "sm_90a");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ(second.compilations(), 0u);
  EXPECT_EQ(second.diskHits(), 1u);
  EXPECT_FALSE((*kernel)->cubin.empty());
  EXPECT_NE((*kernel)->ptx.find(".entry " + (*kernel)->kernelName), std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

namespace {
/// A bf16 300 x 500 x 200 problem the wgmma family takes, with the forced configuration `config`.
MatmulProblem wgmmaProblem(const char *config) {
  MatmulProblem p = smallProblem(64);
  p.a = {ElementType::BF16, {300, 200}, {}};
  p.b = {ElementType::BF16, {500, 200}, {}};
  p.d = {ElementType::BF16, {300, 500}, {}};
  p.transposeB = true;
  p.addressAlignment = 16;
  p.kernelConfig = config;
  return p;
}
} // namespace

TEST(DiskCache, TheLaunchShapeRoundTrips) {
  std::string dir = tempCacheDir("mepi-cache-launch");
  MatmulProblem p =
      wgmmaProblem("#mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6, splits = 2>");
  KernelCache::Entry compiled;
  {
    KernelCache first(dir);
    auto kernel = first.getOrCompile(p, "sm_90a");
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    compiled = *kernel;
  }
  KernelCache second(dir);
  auto read = second.getOrCompile(p, "sm_90a");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(second.diskHits(), 1u);
  EXPECT_EQ((*read)->config, compiled->config);
  EXPECT_EQ((*read)->block, compiled->block);
  EXPECT_EQ((*read)->sharedBytes, compiled->sharedBytes);
  EXPECT_TRUE((*read)->persistent);
  EXPECT_EQ((*read)->workUnits, 3 * 4 * 2); // 128 x 128 tiles of 300 x 500, 2 splits each
  EXPECT_EQ((*read)->cluster, 1);
  EXPECT_GT(compiled->workspaceBytes, 0);
  EXPECT_EQ((*read)->workspaceBytes, compiled->workspaceBytes);
  ASSERT_EQ((*read)->tensorMaps.size(), 2u);
  EXPECT_EQ((*read)->tensorMaps[1].argument, 1u);
  EXPECT_EQ((*read)->tensorMaps[1].box, compiled->tensorMaps[1].box);
  EXPECT_EQ((*read)->tensorMaps[1].swizzle, 128);
  llvm::sys::fs::remove_directories(dir);
}

// A cluster shape travels with the cached kernel: the launch sizes its grid by it.
TEST(DiskCache, TheClusterShapeRoundTrips) {
  std::string dir = tempCacheDir("mepi-cache-cluster");
  MatmulProblem p =
      wgmmaProblem("#mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2>");
  {
    KernelCache first(dir);
    auto kernel = first.getOrCompile(p, "sm_90a");
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_EQ((*kernel)->cluster, 2);
  }
  KernelCache second(dir);
  auto read = second.getOrCompile(p, "sm_90a");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(second.diskHits(), 1u);
  EXPECT_EQ((*read)->cluster, 2);
  EXPECT_EQ((*read)->tensorMaps[1].box, (std::array<int64_t, 2>{64, 128}));
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, ACorruptEntryIsRemovedAndRecompiled) {
  std::string dir = tempCacheDir("mepi-cache-corrupt");
  {
    KernelCache first(dir);
    ASSERT_TRUE(bool(first.getOrCompile(smallProblem(8), "sm_90a")));
  }
  std::string entry = onlyEntry(dir);
  { // flip the cubin's last byte: same size, different hash
    auto buffer = llvm::MemoryBuffer::getFile(entry + "/kernel.cubin", false);
    ASSERT_TRUE(bool(buffer));
    std::string bytes = (*buffer)->getBuffer().str();
    bytes.back() ^= 0x5a;
    std::error_code ec;
    llvm::raw_fd_ostream os(entry + "/kernel.cubin", ec);
    os << bytes;
  }
  KernelCache second(dir);
  ASSERT_TRUE(bool(second.getOrCompile(smallProblem(8), "sm_90a")));
  EXPECT_EQ(second.diskHits(), 0u);
  EXPECT_EQ(second.compilations(), 1u) << "a corrupt entry must not be trusted";
  KernelCache third(dir); // the rewritten entry is good again
  ASSERT_TRUE(bool(third.getOrCompile(smallProblem(8), "sm_90a")));
  EXPECT_EQ(third.diskHits(), 1u);
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, AnEntryWithoutManifestIsIgnoredAndCleaned) {
  std::string dir = tempCacheDir("mepi-cache-partial");
  {
    KernelCache first(dir);
    ASSERT_TRUE(bool(first.getOrCompile(smallProblem(8), "sm_90a")));
  }
  std::string entry = onlyEntry(dir);
  ASSERT_FALSE(llvm::sys::fs::remove(entry + "/manifest.json")); // as if the writer died
  KernelCache second(dir);
  ASSERT_TRUE(bool(second.getOrCompile(smallProblem(8), "sm_90a")));
  EXPECT_EQ(second.compilations(), 1u);
  EXPECT_TRUE(llvm::sys::fs::exists(entry + "/manifest.json")) << "rewritten after recompiling";
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, DirectoryFromEnvironment) {
  setenv("MEPI_CACHE_DIR", "off", 1);
  EXPECT_FALSE(DiskCache::directoryFromEnvironment().has_value());
  setenv("MEPI_CACHE_DIR", "/tmp/somewhere", 1);
  EXPECT_EQ(DiskCache::directoryFromEnvironment().value_or(""), "/tmp/somewhere");
  unsetenv("MEPI_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(DiskCache::directoryFromEnvironment().value_or(""), "/tmp/xdg/mepi");
  unsetenv("XDG_CACHE_HOME");
}

// autotune() compiles its candidates side by side: distinct configurations of one problem
// compiled on four threads give the PTX that one thread compiling them alone gives.
TEST(KernelCache, ConcurrentDistinctCompilations) {
  const char *configs[] = {
      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6>",
      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 4, pingpong = true>",
      "#mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2>",
      "#mepi.kernel_config<wgmma, tile = [64, 128, 64], stages = 8, splits = 2>"};
  KernelCache parallel;
  std::vector<std::string> ptx(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      auto kernel = parallel.getOrCompile(wgmmaProblem(configs[i]), "sm_90a");
      if (kernel)
        ptx[i] = (*kernel)->ptx;
      else
        ptx[i] = "error: " + llvm::toString(kernel.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(parallel.compilations(), 4u);
  KernelCache serial;
  for (int i = 0; i < 4; ++i) {
    auto kernel = serial.getOrCompile(wgmmaProblem(configs[i]), "sm_90a");
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_EQ(ptx[i], (*kernel)->ptx) << configs[i];
  }
}
