// The on-disk kernel cache: atomic writes, manifest last, verified reads.
#include "Runtime/DiskCache.h"

#include "mepi/Sm90/TargetInfo.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mepi::runtime;

namespace {
constexpr int kFormatVersion = 7; // 2: launch shape and tensor maps; 3: splits, workspace;
                                   // 4: work units instead of splits; 5: checksum; 6: load_from_ptx;
                                   // 7: programmatic_launch
// CUDA's limit on the threads of a block, for every chip.
constexpr int64_t kMaxThreads = 1024;

std::string sha256Hex(llvm::StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)), true);
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so that
/// a reader sees either nothing or the whole file.
llvm::Error writeAtomically(const std::string &path, llvm::StringRef bytes) {
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return llvm::createStringError(ec, "cannot create a temporary file beside " + path);
  {
    // Closed here and its error cleared: a stream destroyed with an unchecked error (a full
    // disk at close) would end the process.
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      std::string why = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return llvm::createStringError("cannot write " + std::string(temp) + ": " + why);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError(ec, "cannot rename into " + path);
  }
  return llvm::Error::success();
}

std::optional<std::string> readFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

/// The manifest's text without its checksum, as the checksum covers it (keys sorted).
std::string canonicalText(llvm::json::Object object) {
  object.erase("checksum");
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(object));
  return text;
}

/// Why `path` is not a directory this user alone owns and may write, or nothing: a cache
/// directory others can write could hand this process their code to run.
std::optional<std::string> whyNotPrivate(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status, /*Follow=*/false))
    return "cannot read its status: " + ec.message();
  if (status.type() != llvm::sys::fs::file_type::directory_file)
    return std::string("it is not a directory (a symbolic link is not followed)");
  if (status.getUser() != ::geteuid())
    return "it belongs to user " + std::to_string(status.getUser()) + ", not to this user (" +
           std::to_string(::geteuid()) + ")";
  if (status.permissions() & (llvm::sys::fs::group_write | llvm::sys::fs::others_write))
    return "other users may write it (mode " +
           llvm::utohexstr(status.permissions() & llvm::sys::fs::all_perms) + " in hex)";
  // Nor may another user replace it: each directory above is this user's or root's, and
  // writable by others only with the sticky bit (as /tmp), where one cannot rename another's.
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  for (std::string parent = llvm::sys::path::parent_path(absolute).str(); !parent.empty();
       parent = llvm::sys::path::parent_path(parent).str()) {
    llvm::sys::fs::file_status above;
    if (llvm::sys::fs::status(parent, above, /*Follow=*/true))
      break;
    bool ownerOk = above.getUser() == ::geteuid() || above.getUser() == 0;
    bool writable =
        above.permissions() & (llvm::sys::fs::group_write | llvm::sys::fs::others_write);
    if (!ownerOk || (writable && !(above.permissions() & llvm::sys::fs::sticky_bit)))
      return "its parent " + parent + " could let another user replace it";
    if (parent == "/")
      break;
  }
  return std::nullopt;
}
} // namespace

uint64_t DiskCache::maxBytesFromEnvironment() {
  // A number of bytes (0: no bound); anything else keeps the default, not "no bound".
  uint64_t bytes = 0;
  if (const char *value = std::getenv("MEPI_CACHE_MAX_BYTES");
      value && *value && !llvm::StringRef(value).getAsInteger(10, bytes))
    return bytes;
  return uint64_t(4) << 30;
}

DiskCache::DiskCache(std::string directory, uint64_t maxBytes)
    : directory(std::move(directory)), maxBytes(maxBytes) {
  // Created private; an existing one must be private already (whyNotPrivate).
  if (std::error_code ec = llvm::sys::fs::create_directories(this->directory,
                                                             /*IgnoreExisting=*/true,
                                                             llvm::sys::fs::owner_all)) {
    refusal = "cannot create it: " + ec.message();
    return;
  }
  if (std::optional<std::string> why = whyNotPrivate(this->directory))
    refusal = *why;
}

std::optional<std::string> DiskCache::directoryFromEnvironment() {
  if (const char *dir = std::getenv("MEPI_CACHE_DIR"); dir && *dir)
    return std::string(dir) == "off" ? std::nullopt : std::optional<std::string>(dir);
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/mepi";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/mepi";
  return std::nullopt;
}

/// The launch fields of a manifest: block, shared_bytes, persistent, programmatic_launch,
/// work_units, cluster, workspace_bytes, load_from_ptx and tensor_maps.
static bool readLaunchShape(const llvm::json::Object &object, CompiledKernel &kernel) {
  // The largest the kernels mepi sizes may ask for (sm_90a's; others' SIMT kernels ask less).
  const mlir::mepi::TargetInfo largest = *mlir::mepi::TargetInfo::forChip("sm_90a");
  const int64_t kMaxSharedBytes = largest.sharedBytesPerBlock;
  const int64_t kMaxCluster = largest.maxClusterSize;
  const llvm::json::Array *block = object.getArray("block");
  std::optional<int64_t> shared = object.getInteger("shared_bytes");
  std::optional<bool> persistent = object.getBoolean("persistent");
  std::optional<bool> programmatic = object.getBoolean("programmatic_launch");
  std::optional<llvm::StringRef> config = object.getString("config");
  std::optional<int64_t> units = object.getInteger("work_units");
  std::optional<int64_t> cluster = object.getInteger("cluster");
  std::optional<int64_t> workspace = object.getInteger("workspace_bytes");
  std::optional<bool> fromPtx = object.getBoolean("load_from_ptx");
  const llvm::json::Array *maps = object.getArray("tensor_maps");
  // Values a kernel can have: a damaged manifest must not reach the launch (a 0 tile divides
  // by zero, a 0 block launches nothing).
  if (!block || block->size() != 3 || !shared || *shared < 0 || *shared > kMaxSharedBytes ||
      !persistent || !programmatic || !maps || !config || !units || *units < 0 || !cluster || *cluster < 1 ||
      *cluster > kMaxCluster || !workspace || *workspace < 0 || !fromPtx)
    return false;
  kernel.loadFromPtx = *fromPtx;
  kernel.workUnits = *units;
  kernel.cluster = *cluster;
  kernel.workspaceBytes = *workspace;
  kernel.config = config->str();
  int64_t threads = 1;
  for (size_t i = 0; i < 3; ++i) {
    std::optional<int64_t> size = (*block)[i].getAsInteger();
    if (!size || *size < 1 || *size > kMaxThreads)
      return false;
    kernel.block[i] = *size;
    threads *= *size;
  }
  if (threads > kMaxThreads)
    return false;
  kernel.sharedBytes = *shared;
  kernel.persistent = *persistent;
  kernel.programmaticLaunch = *programmatic;
  for (const llvm::json::Value &value : *maps) {
    const llvm::json::Object *map = value.getAsObject();
    if (!map)
      return false;
    std::optional<int64_t> argument = map->getInteger("argument");
    std::optional<int64_t> inner = map->getInteger("box_inner");
    std::optional<int64_t> outer = map->getInteger("box_outer");
    std::optional<int64_t> swizzle = map->getInteger("swizzle");
    auto boxSide = [](std::optional<int64_t> v) { return v && *v >= 1 && *v <= 256; };
    if (!argument || *argument < 0 || !boxSide(inner) || !boxSide(outer) || !swizzle ||
        (*swizzle != 0 && *swizzle != 32 && *swizzle != 64 && *swizzle != 128))
      return false;
    kernel.tensorMaps.push_back(
        {static_cast<unsigned>(*argument), {*inner, *outer}, *swizzle});
  }
  return true;
}

static void writeLaunchShape(const CompiledKernel &kernel, llvm::json::Object &manifest) {
  llvm::json::Array maps;
  for (const TensorMapSpec &map : kernel.tensorMaps)
    maps.push_back(llvm::json::Object{{"argument", int64_t(map.argument)},
                                      {"box_inner", map.box[0]},
                                      {"box_outer", map.box[1]},
                                      {"swizzle", map.swizzle}});
  manifest["block"] = llvm::json::Array{kernel.block[0], kernel.block[1], kernel.block[2]};
  manifest["shared_bytes"] = kernel.sharedBytes;
  manifest["config"] = kernel.config;
  manifest["persistent"] = kernel.persistent;
  manifest["programmatic_launch"] = kernel.programmaticLaunch;
  manifest["work_units"] = kernel.workUnits;
  manifest["cluster"] = kernel.cluster;
  manifest["workspace_bytes"] = kernel.workspaceBytes;
  manifest["load_from_ptx"] = kernel.loadFromPtx;
  manifest["tensor_maps"] = std::move(maps);
}

std::optional<CompiledKernel>
DiskCache::load(const std::string &key,
                llvm::function_ref<bool(const CompiledKernel &)> matchesPlan) const {
  if (refusal)
    return std::nullopt;
  std::string entry = directory + "/" + key;
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(entry, status, /*Follow=*/false))
    return std::nullopt;
  // Not followed, not trusted: a link (or anything else) in place of an entry is removed
  // itself, never what it points to.
  if (status.type() != llvm::sys::fs::file_type::directory_file) {
    llvm::sys::fs::remove(entry);
    return std::nullopt;
  }
  auto reject = [&]() -> std::optional<CompiledKernel> {
    llvm::sys::fs::remove_directories(entry); // damaged: never trusted
    return std::nullopt;
  };
  std::optional<std::string> manifestText = readFile(entry + "/manifest.json");
  if (!manifestText)
    return reject();
  llvm::Expected<llvm::json::Value> manifest = llvm::json::parse(*manifestText);
  if (!manifest) {
    llvm::consumeError(manifest.takeError());
    return reject();
  }
  const llvm::json::Object *object = manifest->getAsObject();
  if (!object || object->getInteger("format") != kFormatVersion ||
      object->getString("key") != llvm::StringRef(key) ||
      object->getString("checksum") != llvm::StringRef(sha256Hex(canonicalText(*object))))
    return reject();

  CompiledKernel kernel;
  std::optional<llvm::StringRef> name = object->getString("kernel");
  std::optional<int64_t> tileM = object->getInteger("tile_m");
  std::optional<int64_t> tileN = object->getInteger("tile_n");
  if (!name || !tileM || !tileN || *tileM < 1 || *tileN < 1)
    return reject();
  kernel.kernelName = name->str();
  kernel.tile = {*tileM, *tileN};
  if (!readLaunchShape(*object, kernel))
    return reject();
  const llvm::json::Object *files = object->getObject("files");
  if (!files)
    return reject();
  for (const char *file : {"kernel.cubin", "kernel.ptx", "planned.mlir"}) {
    const llvm::json::Object *info = files->getObject(file);
    std::optional<std::string> bytes = readFile(entry + "/" + file);
    if (!info || !bytes || info->getInteger("size") != int64_t(bytes->size()) ||
        info->getString("sha256") != llvm::StringRef(sha256Hex(*bytes)))
      return reject();
    if (llvm::StringRef(file) == "kernel.cubin")
      kernel.cubin.assign(bytes->begin(), bytes->end());
    else if (llvm::StringRef(file) == "kernel.ptx")
      kernel.ptx = std::move(*bytes);
    else
      kernel.plannedIR = std::move(*bytes);
  }
  if (matchesPlan && !matchesPlan(kernel))
    return reject();
  // Used now: the last to be evicted (evict() orders entries by their manifest's time).
  ::utimensat(AT_FDCWD, (entry + "/manifest.json").c_str(), nullptr, 0);
  return kernel;
}

void DiskCache::evict(const std::string &keep) const {
  if (maxBytes == 0)
    return;
  struct Entry {
    std::string path;
    uint64_t bytes = 0;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    // Not followed: a link in place of an entry is never what eviction walks or removes.
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status, /*Follow=*/false) ||
        status.type() != llvm::sys::fs::file_type::directory_file)
      continue;
    // A writer's temporary directory: one a day old was left by a writer that died.
    if (name.starts_with(".tmp-")) {
      if (std::chrono::system_clock::now() - status.getLastModificationTime() >
          std::chrono::hours(24))
        llvm::sys::fs::remove_directories(it->path());
      continue;
    }
    if (name.starts_with("."))
      continue;
    Entry e{it->path(), 0, {}};
    std::error_code fileEc;
    for (llvm::sys::fs::directory_iterator f(e.path, fileEc), fend; f != fend && !fileEc;
         f.increment(fileEc))
      if (llvm::ErrorOr<llvm::sys::fs::basic_file_status> st = f->status())
        e.bytes += st->getSize();
    llvm::sys::fs::file_status manifest;
    if (!llvm::sys::fs::status(e.path + "/manifest.json", manifest))
      e.used = manifest.getLastModificationTime();
    total += e.bytes;
    entries.push_back(std::move(e));
  }
  llvm::sort(entries, [](const Entry &x, const Entry &y) { return x.used < y.used; });
  for (const Entry &e : entries) {
    if (total <= maxBytes)
      break;
    if (llvm::sys::path::filename(e.path) == keep)
      continue;
    if (!llvm::sys::fs::remove_directories(e.path))
      total -= e.bytes;
  }
}

llvm::Error DiskCache::store(const std::string &key, const CompiledKernel &kernel) const {
  if (refusal)
    return llvm::createStringError("the kernel cache " + directory + " is not used: " +
                                   *refusal);
  // The entry is written whole in a private temporary directory, then renamed into place: a
  // reader sees no entry or a complete one, and never removes one being written.
  llvm::SmallString<256> temp;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory(directory + "/.tmp-" + key, temp))
    return llvm::createStringError(ec, "cannot create a directory in " + directory);
  llvm::sys::fs::setPermissions(temp, llvm::sys::fs::owner_all);
  auto fail = [&](llvm::Error e) {
    llvm::sys::fs::remove_directories(temp);
    return e;
  };
  llvm::StringRef cubin(kernel.cubin.data(), kernel.cubin.size());
  llvm::json::Object files;
  for (auto [name, bytes] : {std::pair<const char *, llvm::StringRef>{"kernel.cubin", cubin},
                             {"kernel.ptx", kernel.ptx},
                             {"planned.mlir", kernel.plannedIR}}) {
    if (llvm::Error e = writeAtomically(std::string(temp) + "/" + name, bytes))
      return fail(std::move(e));
    files[name] = llvm::json::Object{{"size", int64_t(bytes.size())},
                                     {"sha256", sha256Hex(bytes)}};
  }
  llvm::json::Object manifest{{"format", kFormatVersion},
                              {"key", key},
                              {"kernel", kernel.kernelName},
                              {"tile_m", kernel.tile[0]},
                              {"tile_n", kernel.tile[1]},
                              {"files", std::move(files)}};
  writeLaunchShape(kernel, manifest);
  manifest["checksum"] = sha256Hex(canonicalText(manifest));
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(manifest));
  if (llvm::Error e = writeAtomically(std::string(temp) + "/manifest.json", text))
    return fail(std::move(e));
  if (std::error_code ec = llvm::sys::fs::rename(temp, directory + "/" + key)) {
    llvm::sys::fs::remove_directories(temp);
    // Another process stored the same key first: its entry serves.
    if (llvm::sys::fs::is_directory(directory + "/" + key))
      return llvm::Error::success();
    return llvm::createStringError(ec, "cannot rename into " + directory + "/" + key);
  }
  evict(key);
  return llvm::Error::success();
}
