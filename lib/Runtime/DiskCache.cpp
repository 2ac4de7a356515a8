// The on-disk kernel cache: atomic writes, manifest last, verified reads.
#include "Runtime/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mepi::runtime;

namespace {
constexpr int kFormatVersion = 4; // 2: launch shape and tensor maps; 3: splits, workspace;
                                   // 4: work units instead of splits

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
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.flush();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return llvm::createStringError("cannot write " + std::string(temp));
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
} // namespace

std::optional<std::string> DiskCache::directoryFromEnvironment() {
  if (const char *dir = std::getenv("MEPI_CACHE_DIR"); dir && *dir)
    return std::string(dir) == "off" ? std::nullopt : std::optional<std::string>(dir);
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/mepi";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/mepi";
  return std::nullopt;
}

/// The launch fields of a manifest: block, shared_bytes, persistent, work_units, cluster,
/// workspace_bytes and tensor_maps.
static bool readLaunchShape(const llvm::json::Object &object, CompiledKernel &kernel) {
  const llvm::json::Array *block = object.getArray("block");
  std::optional<int64_t> shared = object.getInteger("shared_bytes");
  std::optional<bool> persistent = object.getBoolean("persistent");
  std::optional<llvm::StringRef> config = object.getString("config");
  std::optional<int64_t> units = object.getInteger("work_units");
  std::optional<int64_t> cluster = object.getInteger("cluster");
  std::optional<int64_t> workspace = object.getInteger("workspace_bytes");
  const llvm::json::Array *maps = object.getArray("tensor_maps");
  if (!block || block->size() != 3 || !shared || !persistent || !maps || !config || !units ||
      *units < 0 || !cluster || *cluster < 1 || !workspace || *workspace < 0)
    return false;
  kernel.workUnits = *units;
  kernel.cluster = *cluster;
  kernel.workspaceBytes = *workspace;
  kernel.config = config->str();
  for (size_t i = 0; i < 3; ++i) {
    std::optional<int64_t> size = (*block)[i].getAsInteger();
    if (!size)
      return false;
    kernel.block[i] = *size;
  }
  kernel.sharedBytes = *shared;
  kernel.persistent = *persistent;
  for (const llvm::json::Value &value : *maps) {
    const llvm::json::Object *map = value.getAsObject();
    if (!map)
      return false;
    std::optional<int64_t> argument = map->getInteger("argument");
    std::optional<int64_t> inner = map->getInteger("box_inner");
    std::optional<int64_t> outer = map->getInteger("box_outer");
    std::optional<int64_t> swizzle = map->getInteger("swizzle");
    if (!argument || !inner || !outer || !swizzle)
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
  manifest["work_units"] = kernel.workUnits;
  manifest["cluster"] = kernel.cluster;
  manifest["workspace_bytes"] = kernel.workspaceBytes;
  manifest["tensor_maps"] = std::move(maps);
}

std::optional<CompiledKernel> DiskCache::load(const std::string &key) const {
  std::string entry = directory + "/" + key;
  if (!llvm::sys::fs::is_directory(entry))
    return std::nullopt;
  auto reject = [&]() -> std::optional<CompiledKernel> {
    llvm::sys::fs::remove_directories(entry); // damaged or partial: never trusted
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
      object->getString("key") != llvm::StringRef(key))
    return reject();

  CompiledKernel kernel;
  std::optional<llvm::StringRef> name = object->getString("kernel");
  std::optional<int64_t> tileM = object->getInteger("tile_m");
  std::optional<int64_t> tileN = object->getInteger("tile_n");
  if (!name || !tileM || !tileN)
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
  return kernel;
}

llvm::Error DiskCache::store(const std::string &key, const CompiledKernel &kernel) const {
  std::string entry = directory + "/" + key;
  if (std::error_code ec = llvm::sys::fs::create_directories(entry))
    return llvm::createStringError(ec, "cannot create the cache entry " + entry);
  // Files first, the manifest last: until it exists, load() ignores (and cleans) the entry.
  llvm::StringRef cubin(kernel.cubin.data(), kernel.cubin.size());
  llvm::json::Object files;
  for (auto [name, bytes] : {std::pair<const char *, llvm::StringRef>{"kernel.cubin", cubin},
                             {"kernel.ptx", kernel.ptx},
                             {"planned.mlir", kernel.plannedIR}}) {
    if (llvm::Error e = writeAtomically(entry + "/" + name, bytes))
      return e;
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
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(manifest));
  return writeAtomically(entry + "/manifest.json", text);
}
