// The kernel caches: one compilation per problem in memory, also under concurrency; on disk,
// entries that survive the process and are never trusted when damaged, lying or not private.
#include "Runtime/KernelCache.h"
#include "Runtime/Log.h"
#include "Target/JitLink.h"

#include <gtest/gtest.h>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <functional>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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

// The build is known by its contents (the linker's build id), not by its file's size and time;
// libdevice by its bytes, not by the toolkit's path.
TEST(KernelCache, KeyHoldsTheBuildIdAndLibdevicesBytes) {
  EXPECT_EQ(buildFingerprint().rfind("build-id ", 0), 0u) << buildFingerprint();
  std::string libdevice = libdeviceFingerprint();
  EXPECT_TRUE(libdevice == "none" || libdevice.size() == 64) << libdevice;
  std::string base = kernelCacheKey("ir", "sm_90a", {});
  // Another toolkit directory holding the same libdevice gives the same key.
  std::string dir = "mepi-toolkit-copy";
  llvm::sys::fs::create_directories(dir + "/nvvm/libdevice");
  const char *cuda = std::getenv("CUDA_ROOT");
  std::string original = cuda ? cuda : "/usr/local/cuda";
  llvm::sys::fs::copy_file(original + "/nvvm/libdevice/libdevice.10.bc",
                           dir + "/nvvm/libdevice/libdevice.10.bc");
  setenv("CUDA_ROOT", dir.c_str(), 1);
  EXPECT_EQ(libdeviceFingerprint(), libdevice);
  EXPECT_EQ(kernelCacheKey("ir", "sm_90a", {}), base);
  // Other bytes, another key.
  {
    std::error_code ec;
    llvm::raw_fd_ostream(dir + "/nvvm/libdevice/libdevice.10.bc", ec) << "another libdevice";
  }
  setenv("CUDA_ROOT", (dir + "/.").c_str(), 1); // a path not read before in this process
  EXPECT_NE(kernelCacheKey("ir", "sm_90a", {}), base);
  if (cuda)
    setenv("CUDA_ROOT", cuda, 1);
  else
    unsetenv("CUDA_ROOT");
  llvm::sys::fs::remove_directories(dir);
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
  MatmulProblem p = wgmmaProblem("#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = "
                                 "<stages = 6>, scheduler = <split_k, splits = 2>>");
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
  EXPECT_TRUE(compiled->programmaticLaunch); // a wgmma kernel: it waits for the grid before it
  EXPECT_TRUE((*read)->programmaticLaunch);
  EXPECT_EQ((*read)->workUnits, 3 * 4 * 2); // 128 x 128 tiles of 300 x 500, 2 splits each
  EXPECT_EQ((*read)->cluster, 1);
  EXPECT_GT(compiled->workspaceBytes, 0);
  EXPECT_EQ((*read)->workspaceBytes, compiled->workspaceBytes);
  ASSERT_EQ((*read)->tensorMaps.size(), 2u);
  EXPECT_EQ((*read)->tensorMaps[1].argument, 1u);
  EXPECT_EQ((*read)->tensorMaps[1].box, compiled->tensorMaps[1].box);
  EXPECT_EQ((*read)->tensorMaps[1].swizzle, 128);
  EXPECT_FALSE(compiled->loadFromPtx); // no spills in nvJitLink's cubin: loads it
  EXPECT_FALSE((*read)->loadFromPtx);
  llvm::sys::fs::remove_directories(dir);
}


// A cluster shape travels with the cached kernel: the launch sizes its grid by it.
TEST(DiskCache, TheClusterShapeRoundTrips) {
  std::string dir = tempCacheDir("mepi-cache-cluster");
  MatmulProblem p = wgmmaProblem(
      "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>>");
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
      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>>",
      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4, pingpong = true>>",
      "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>>",
      "#mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 8>, scheduler = "
      "<split_k, splits = 2>>"};
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
  // The same through one log sink (which threads call in turn), and the same keys again from
  // four threads: each compiled once more in a new cache, then hits.
  std::vector<std::string> heard;
  replaceLogSink([&](mepi::LogLevel, const std::string &message) { heard.push_back(message); });
  KernelCache logged;
  threads.clear();
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] { (void)bool(logged.getOrCompile(wgmmaProblem(configs[i % 4]),
                                                                 "sm_90a")); });
  for (std::thread &t : threads)
    t.join();
  replaceLogSink(nullptr);
  EXPECT_EQ(logged.compilations(), 4u);
  EXPECT_EQ(std::count_if(heard.begin(), heard.end(),
                          [](const std::string &m) { return m.rfind("kernel cache: compiled", 0) == 0; }),
            4);
  KernelCache serial;
  for (int i = 0; i < 4; ++i) {
    auto kernel = serial.getOrCompile(wgmmaProblem(configs[i]), "sm_90a");
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    EXPECT_EQ(ptx[i], (*kernel)->ptx) << configs[i];
  }
}

namespace {
/// Rewrites the entry's manifest through `edit` (on its JSON object); with `reseal`, its
/// checksum is recomputed as the cache computes it (sha256 of the text without it, keys
/// sorted), so that only the cache's other checks can catch the lie.
void editManifest(const std::string &entry, bool reseal,
                  llvm::function_ref<void(llvm::json::Object &)> edit) {
  auto buffer = llvm::MemoryBuffer::getFile(entry + "/manifest.json", false);
  ASSERT_TRUE(bool(buffer));
  llvm::Expected<llvm::json::Value> value = llvm::json::parse((*buffer)->getBuffer());
  ASSERT_TRUE(bool(value));
  llvm::json::Object object = *value->getAsObject();
  edit(object);
  if (reseal) {
    object.erase("checksum");
    std::string text;
    llvm::raw_string_ostream(text) << llvm::json::Value(llvm::json::Object(object));
    object["checksum"] =
        llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(text)), true);
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(entry + "/manifest.json", ec);
  os << llvm::json::Value(std::move(object));
}

/// Plans smallProblem(8) with a disk cache in `dir` and says whether it came from the disk.
bool readFromDisk(const std::string &dir) {
  KernelCache cache(dir);
  auto kernel = cache.getOrCompile(smallProblem(8), "sm_90a");
  EXPECT_TRUE(bool(kernel));
  if (!kernel)
    llvm::consumeError(kernel.takeError());
  return cache.diskHits() == 1;
}

/// A cache directory with one stored entry; returns the entry's path.
std::string storedEntry(const std::string &dir) {
  EXPECT_FALSE(readFromDisk(dir));
  return onlyEntry(dir);
}
} // namespace

TEST(DiskCache, ALyingManifestIsNotTrusted) {
  std::string dir = tempCacheDir("mepi-cache-lying");
  std::string entry = storedEntry(dir);
  ASSERT_TRUE(readFromDisk(dir)) << "an intact entry serves";
  // A smaller workspace would let the kernel write past what the runtime allocates.
  editManifest(entry, /*reseal=*/false, [](llvm::json::Object &m) { m["workspace_bytes"] = 1; });
  EXPECT_FALSE(readFromDisk(dir)) << "the checksum catches an edited field";
  // A resealed manifest with launch fields no kernel has (a 0 tile divides by zero, a block
  // of 0 or 4096 threads, an unknown swizzle).
  for (auto edit : std::vector<std::function<void(llvm::json::Object &)>>{
           [](llvm::json::Object &m) { m["tile_m"] = 0; },
           [](llvm::json::Object &m) { m["block"] = llvm::json::Array{0, 1, 1}; },
           [](llvm::json::Object &m) { m["block"] = llvm::json::Array{4096, 1, 1}; },
           [](llvm::json::Object &m) { m["cluster"] = 0; },
           [](llvm::json::Object &m) { m["shared_bytes"] = -1; }}) {
    editManifest(onlyEntry(dir), /*reseal=*/true, edit);
    EXPECT_FALSE(readFromDisk(dir));
    EXPECT_TRUE(readFromDisk(dir)) << "recompiled and stored again";
  }
  llvm::sys::fs::remove_directories(dir);
}

// A resealed manifest whose launch fields are plausible but not what the plan lowers to: each
// is compiled anew (the regenerated launch disagrees), then served from disk again.
TEST(DiskCache, AManifestThatContradictsThePlanIsNotTrusted) {
  std::string dir = tempCacheDir("mepi-cache-contradicts");
  storedEntry(dir);
  for (auto edit : std::vector<std::function<void(llvm::json::Object &)>>{
           [](llvm::json::Object &m) {
             m["workspace_bytes"] = *m.getInteger("workspace_bytes") + 256;
           },
           [](llvm::json::Object &m) { m["shared_bytes"] = *m.getInteger("shared_bytes") + 1024; },
           [](llvm::json::Object &m) { m["tile_m"] = *m.getInteger("tile_m") * 2; },
           [](llvm::json::Object &m) { m["work_units"] = *m.getInteger("work_units") + 1; },
           [](llvm::json::Object &m) { m["programmatic_launch"] = false; },
           [](llvm::json::Object &m) {
             m["config"] =
                 "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 5>>";
           }}) {
    editManifest(onlyEntry(dir), /*reseal=*/true, edit);
    EXPECT_FALSE(readFromDisk(dir));
    EXPECT_TRUE(readFromDisk(dir)) << "recompiled and stored again";
  }
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, TruncatedAndEmptyManifestsAreRecompiled) {
  std::string dir = tempCacheDir("mepi-cache-truncated");
  std::string entry = storedEntry(dir);
  for (size_t keep : {size_t(0), size_t(40)}) {
    auto buffer = llvm::MemoryBuffer::getFile(onlyEntry(dir) + "/manifest.json", false);
    ASSERT_TRUE(bool(buffer));
    std::string text = (*buffer)->getBuffer().substr(0, keep).str();
    std::error_code ec;
    llvm::raw_fd_ostream(onlyEntry(dir) + "/manifest.json", ec) << text;
    EXPECT_FALSE(readFromDisk(dir)) << keep << " bytes";
  }
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, ALinkInPlaceOfAnEntryIsRemovedNotFollowed) {
  std::string dir = tempCacheDir("mepi-cache-link");
  std::string entry = storedEntry(dir);
  std::string victim = tempCacheDir("mepi-cache-victim");
  ASSERT_FALSE(llvm::sys::fs::remove_directories(entry));
  { std::error_code ec; llvm::raw_fd_ostream(victim + "/precious", ec) << "keep me"; }
  ASSERT_FALSE(llvm::sys::fs::create_link(victim, entry));
  EXPECT_FALSE(readFromDisk(dir));
  EXPECT_TRUE(llvm::sys::fs::exists(victim + "/precious")) << "the link's target is untouched";
  EXPECT_TRUE(readFromDisk(dir)) << "a real entry stored in the link's place";
  llvm::sys::fs::remove_directories(victim);
  llvm::sys::fs::remove_directories(dir);
}

TEST(DiskCache, ADirectoryOthersCanWriteIsNotUsed) {
  std::string dir = tempCacheDir("mepi-cache-shared");
  ASSERT_FALSE(llvm::sys::fs::setPermissions(dir, llvm::sys::fs::all_all));
  DiskCache disk(dir);
  ASSERT_TRUE(disk.refused().has_value());
  EXPECT_NE(disk.refused()->find("other users may write it"), std::string::npos)
      << *disk.refused();
  // The plan still succeeds, compiled, and leaves nothing there.
  EXPECT_FALSE(readFromDisk(dir));
  EXPECT_FALSE(readFromDisk(dir));
  EXPECT_EQ(onlyEntry(dir), "");
  llvm::sys::fs::remove_directories(dir);
}

// A private directory under one others may write (without the sticky bit) could be renamed
// away and replaced by theirs: not used either.
TEST(DiskCache, ADirectoryUnderOneOthersCanWriteIsNotUsed) {
  std::string shared = tempCacheDir("mepi-cache-open-parent");
  ASSERT_FALSE(llvm::sys::fs::setPermissions(shared, llvm::sys::fs::all_all));
  std::string dir = shared + "/mine";
  DiskCache disk(dir);
  ASSERT_TRUE(disk.refused().has_value());
  EXPECT_NE(disk.refused()->find("its parent " + shared + " could let another user replace it"),
            std::string::npos)
      << *disk.refused();
  // With the sticky bit (as /tmp) it is fine.
  ASSERT_FALSE(llvm::sys::fs::setPermissions(
      shared, llvm::sys::fs::all_all | llvm::sys::fs::sticky_bit));
  EXPECT_FALSE(DiskCache(dir).refused().has_value());
  llvm::sys::fs::remove_directories(shared);
}

TEST(DiskCache, ANewDirectoryIsPrivate) {
  std::string parent = tempCacheDir("mepi-cache-parent");
  std::string dir = parent + "/nested/cache";
  DiskCache disk(dir);
  EXPECT_FALSE(disk.refused().has_value());
  llvm::sys::fs::file_status status;
  ASSERT_FALSE(llvm::sys::fs::status(dir, status));
  EXPECT_EQ(status.permissions() & llvm::sys::fs::all_perms, llvm::sys::fs::owner_all);
  llvm::sys::fs::remove_directories(parent);
}

// Processes planning the same key at once: every one succeeds, one entry results, complete,
// and no temporary directory is left behind.
TEST(DiskCache, ProcessesStoringTheSameKeyAtOnce) {
  std::string dir = tempCacheDir("mepi-cache-race");
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      KernelCache cache(dir);
      auto kernel = cache.getOrCompile(smallProblem(8), "sm_90a");
      _exit(kernel ? 0 : (llvm::consumeError(kernel.takeError()), 1));
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::error_code ec;
  int entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    ++entries;
    EXPECT_EQ(llvm::sys::path::filename(it->path()).find(".tmp-"), llvm::StringRef::npos);
  }
  EXPECT_EQ(entries, 1);
  EXPECT_TRUE(readFromDisk(dir));
  llvm::sys::fs::remove_directories(dir);
}

namespace {
/// A kernel of about `bytes` bytes on disk (its cubin), to fill a bounded cache.
CompiledKernel kernelOfSize(size_t bytes) {
  CompiledKernel k;
  k.kernelName = "k";
  k.tile = {16, 16};
  k.block = {256, 1, 1};
  k.config = "#mepi.kernel_config<simt, tile = [16, 16, 1]>";
  k.cubin.assign(bytes, 'x');
  return k;
}

void setUsed(const std::string &dir, const std::string &key, int secondsAgo) {
  auto when = std::chrono::system_clock::now() - std::chrono::seconds(secondsAgo);
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = std::chrono::system_clock::to_time_t(when);
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir + "/" + key + "/manifest.json").c_str(), times, 0), 0);
}
} // namespace

// A bounded cache keeps what fits, removing the least recently used entries first: reading an
// entry makes it the most recently used.
TEST(DiskCache, TheLeastRecentlyUsedEntriesGoFirst) {
  std::string dir = tempCacheDir("mepi-cache-bounded");
  DiskCache disk(dir, /*maxBytes=*/250 * 1024); // two 100 KiB entries and their small files
  ASSERT_FALSE(bool(disk.store("k1", kernelOfSize(100 * 1024))));
  ASSERT_FALSE(bool(disk.store("k2", kernelOfSize(100 * 1024))));
  setUsed(dir, "k1", 300);
  setUsed(dir, "k2", 200);
  EXPECT_TRUE(disk.load("k1").has_value()); // k1 used now: k2 is the least recent
  ASSERT_FALSE(bool(disk.store("k3", kernelOfSize(100 * 1024))));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/k1"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/k2"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/k3"));
  // An entry larger than the bound stays (the one just stored is never evicted) alone.
  ASSERT_FALSE(bool(disk.store("big", kernelOfSize(400 * 1024))));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/big"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/k1"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/k3"));
  llvm::sys::fs::remove_directories(dir);
}

// A writer that died leaves its temporary directory: eviction removes it once a day old, and
// leaves a recent one (a writer at work) alone; a link among the entries is never followed.
TEST(DiskCache, EvictionRemovesDeadWritersTemporariesAndFollowsNoLinks) {
  std::string dir = tempCacheDir("mepi-cache-temporaries");
  std::string old = dir + "/.tmp-dead", recent = dir + "/.tmp-busy", target = dir + "-target";
  for (const std::string &d : {old, recent, target})
    ASSERT_FALSE(llvm::sys::fs::create_directories(d));
  ASSERT_FALSE(llvm::sys::fs::create_link(target, dir + "/0123linked"));
  { std::error_code ec; llvm::raw_fd_ostream(target + "/keep", ec) << "x"; }
  struct timespec times[2] = {{0, 0}, {0, 0}}; // 1970: long dead
  ASSERT_EQ(::utimensat(AT_FDCWD, old.c_str(), times, 0), 0);
  readFromDisk(dir); // compiles and stores one entry, which runs eviction
  EXPECT_FALSE(llvm::sys::fs::exists(old));
  EXPECT_TRUE(llvm::sys::fs::exists(recent));
  EXPECT_TRUE(llvm::sys::fs::exists(target + "/keep"));
  llvm::sys::fs::remove_directories(dir);
  llvm::sys::fs::remove_directories(target);
}

TEST(DiskCache, MaxBytesFromEnvironment) {
  setenv("MEPI_CACHE_MAX_BYTES", "12345", 1);
  EXPECT_EQ(DiskCache::maxBytesFromEnvironment(), 12345u);
  setenv("MEPI_CACHE_MAX_BYTES", "4G", 1); // not a number: the default, not "no bound"
  EXPECT_EQ(DiskCache::maxBytesFromEnvironment(), uint64_t(4) << 30);
  unsetenv("MEPI_CACHE_MAX_BYTES");
  EXPECT_EQ(DiskCache::maxBytesFromEnvironment(), uint64_t(4) << 30);
}

// A write that fails only when the file is closed (its buffered bytes flushed past a file-size
// limit, as on a full disk) is reported, and leaves no entry and no temporary behind. Run in a
// child process: the limit would apply to this process's own output too.
TEST(DiskCache, AFailureAtCloseIsReportedAndLeavesNothing) {
  std::string dir = tempCacheDir("mepi-cache-close");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    DiskCache cache(dir, 0);
    signal(SIGXFSZ, SIG_IGN); // the write then fails with EFBIG instead of a signal
    struct rlimit limit = {512, 512};
    setrlimit(RLIMIT_FSIZE, &limit);
    // 1000 bytes stay in the stream's buffer (a block, 4 KiB) until close() writes them.
    llvm::Error e = cache.store("k", kernelOfSize(1000));
    bool reported = bool(e) && llvm::toString(std::move(e)).find("cannot write") !=
                                   std::string::npos;
    _exit(reported ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(onlyEntry(dir), "") << "an entry or a temporary was left";
  EXPECT_FALSE(DiskCache(dir, 0).load("k"));
  llvm::sys::fs::remove_directories(dir);
}

// Whether the module loads from the PTX travels with the entry.
TEST(DiskCache, LoadFromPtxRoundTrips) {
  std::string dir = tempCacheDir("mepi-cache-from-ptx");
  DiskCache cache(dir, 0);
  CompiledKernel k = kernelOfSize(64);
  k.loadFromPtx = true;
  ASSERT_FALSE(bool(cache.store("k", k)));
  std::optional<CompiledKernel> read = cache.load("k");
  ASSERT_TRUE(read.has_value());
  EXPECT_TRUE(read->loadFromPtx);
  llvm::sys::fs::remove_directories(dir);
}

// nvJitLink's verbose report, read for spills (CompiledKernel::loadFromPtx).
TEST(JitLinkReport, SpillsAreFoundInTheVerboseLog) {
  EXPECT_TRUE(mlir::mepi::reportsSpills(
      "ptxas info    : (C7504) Potential Performance Loss: 'setmaxnreg' ignored\n"
      "ptxas         .     216 bytes stack frame, 428 bytes spill stores, 464 bytes spill "
      "loads\nptxas info    : Used 168 registers, used 16 barriers\n"));
  EXPECT_TRUE(mlir::mepi::reportsSpills(
      "ptxas         .     0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads"));
  EXPECT_FALSE(mlir::mepi::reportsSpills(
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 16 barriers"));
  EXPECT_FALSE(mlir::mepi::reportsSpills(""));
}

// A full disk (a file-size limit here): the plan still compiles and succeeds, uncached, and
// says so once as a warning. In a child process: the limit and the once-per-process warning
// are its own.
TEST(KernelCache, AFullDiskLeavesThePlanUncachedWithAWarning) {
  std::string dir = tempCacheDir("mepi-cache-full");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    static std::string warned;
    replaceLogSink([](mepi::LogLevel level, const std::string &message) {
      if (level == mepi::LogLevel::Warning)
        warned += message;
    });
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {512, 512};
    setrlimit(RLIMIT_FSIZE, &limit);
    KernelCache cache(dir);
    auto kernel = cache.getOrCompile(smallProblem(8), "sm_90a");
    bool planned = bool(kernel);
    if (!planned)
      llvm::consumeError(kernel.takeError());
    bool said = warned.find("kernels are not kept on disk") != std::string::npos;
    _exit(planned && said && cache.compilations() == 1 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(onlyEntry(dir), "") << "an entry or a temporary was left";
  llvm::sys::fs::remove_directories(dir);
}
