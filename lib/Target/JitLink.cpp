// nvJitLink: PTX + user device objects -> cubin, with the logs kept in errors.
#include "Target/JitLink.h"

#include "llvm/Support/FormatVariadic.h"

#include <nvJitLink.h>

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <string>
#include <vector>

using namespace mlir::mepi;

namespace {
const char *resultName(nvJitLinkResult result) {
  switch (result) {
  case NVJITLINK_SUCCESS: return "NVJITLINK_SUCCESS";
  case NVJITLINK_ERROR_UNRECOGNIZED_OPTION: return "NVJITLINK_ERROR_UNRECOGNIZED_OPTION";
  case NVJITLINK_ERROR_MISSING_ARCH: return "NVJITLINK_ERROR_MISSING_ARCH";
  case NVJITLINK_ERROR_INVALID_INPUT: return "NVJITLINK_ERROR_INVALID_INPUT";
  case NVJITLINK_ERROR_PTX_COMPILE: return "NVJITLINK_ERROR_PTX_COMPILE";
  case NVJITLINK_ERROR_NVVM_COMPILE: return "NVJITLINK_ERROR_NVVM_COMPILE";
  case NVJITLINK_ERROR_INTERNAL: return "NVJITLINK_ERROR_INTERNAL";
  default: return "NVJITLINK_ERROR";
  }
}

struct HandleDeleter {
  void operator()(nvJitLinkHandle handle) const { nvJitLinkDestroy(&handle); }
};
using Handle = std::unique_ptr<std::remove_pointer_t<nvJitLinkHandle>, HandleDeleter>;

std::string readLog(nvJitLinkHandle handle, bool errorLog) {
  size_t size = 0;
  if ((errorLog ? nvJitLinkGetErrorLogSize(handle, &size)
                : nvJitLinkGetInfoLogSize(handle, &size)) != NVJITLINK_SUCCESS ||
      size <= 1)
    return "";
  std::string log(size, '\0');
  if ((errorLog ? nvJitLinkGetErrorLog(handle, log.data())
                : nvJitLinkGetInfoLog(handle, log.data())) != NVJITLINK_SUCCESS)
    return "";
  log.resize(size - 1); // drop the terminating NUL
  return log;
}

llvm::Error failure(nvJitLinkHandle handle, nvJitLinkResult result, llvm::StringRef step) {
  std::string message = llvm::formatv("nvJitLink {0} failed: {1} ({2})", step,
                                      resultName(result), static_cast<int>(result));
  if (handle) {
    if (std::string log = readLog(handle, true); !log.empty())
      message += "\nerror log:\n" + log;
    if (std::string log = readLog(handle, false); !log.empty())
      message += "\ninfo log:\n" + log;
  }
  return llvm::createStringError(message);
}

/// nvJitLink compiles LTO-IR through libNVVM, which it loads at run time by name. Some CUDA
/// installs keep libnvvm only in <toolkit>/nvvm/lib64, off the loader's path; loading it first,
/// globally, by its path lets nvJitLink's lookup find the library already in the process.
void preloadLibNVVM() {
  static const bool loaded = [] {
    for (const char *name : {"libnvvm.so.4", "libnvvm.so"})
      if (dlopen(name, RTLD_NOW | RTLD_GLOBAL))
        return true;
    std::vector<std::string> roots;
    for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
      if (const char *value = std::getenv(var); value && *value)
        roots.push_back(value);
    roots.push_back("/usr/local/cuda");
    for (const std::string &root : roots)
      for (const char *sub : {"/nvvm/lib64/libnvvm.so", "/nvvm/lib/libnvvm.so", "/lib64/libnvvm.so"})
        if (dlopen((root + sub).c_str(), RTLD_NOW | RTLD_GLOBAL))
          return true;
    return false;
  }();
  (void)loaded; // if not found, nvJitLink reports the failure itself
}

nvJitLinkInputType inputType(DeviceObject::Kind kind) {
  switch (kind) {
  case DeviceObject::Kind::PTX: return NVJITLINK_INPUT_PTX;
  case DeviceObject::Kind::LTOIR: return NVJITLINK_INPUT_LTOIR;
  case DeviceObject::Kind::Cubin: return NVJITLINK_INPUT_CUBIN;
  case DeviceObject::Kind::Fatbin: return NVJITLINK_INPUT_FATBIN;
  }
  return NVJITLINK_INPUT_ANY;
}
} // namespace

llvm::Expected<LinkedCubin> mlir::mepi::linkCubin(llvm::StringRef ptx,
                                                  llvm::ArrayRef<DeviceObject> objects,
                                                  llvm::StringRef arch, bool verbose) {
  std::string archOption = ("-arch=" + arch).str();
  std::vector<const char *> options = {archOption.c_str()};
  if (verbose)
    options.push_back("-verbose");
  bool hasLTO = llvm::any_of(
      objects, [](const DeviceObject &o) { return o.kind == DeviceObject::Kind::LTOIR; });
  if (hasLTO) {
    options.push_back("-lto");
    preloadLibNVVM();
  }

  nvJitLinkHandle raw = nullptr;
  if (nvJitLinkResult r = nvJitLinkCreate(&raw, options.size(), options.data()))
    return failure(nullptr, r, "create (" + archOption + ")");
  Handle handle(raw);

  // nvJitLink reads PTX as a NUL-terminated string.
  std::string ptxText = ptx.str();
  if (nvJitLinkResult r = nvJitLinkAddData(raw, NVJITLINK_INPUT_PTX, ptxText.c_str(),
                                           ptxText.size() + 1, "mepi_kernels.ptx"))
    return failure(raw, r, "add of the generated PTX");
  for (const DeviceObject &object : objects) {
    std::vector<char> data = object.bytes;
    if (object.kind == DeviceObject::Kind::PTX && (data.empty() || data.back() != '\0'))
      data.push_back('\0');
    if (nvJitLinkResult r = nvJitLinkAddData(raw, inputType(object.kind), data.data(),
                                             data.size(), object.name.c_str()))
      return failure(raw, r, "add of '" + object.name + "'");
  }
  if (nvJitLinkResult r = nvJitLinkComplete(raw))
    return failure(raw, r, "link");

  size_t size = 0;
  if (nvJitLinkResult r = nvJitLinkGetLinkedCubinSize(raw, &size))
    return failure(raw, r, "cubin size query");
  LinkedCubin linked;
  linked.cubin.resize(size);
  if (nvJitLinkResult r = nvJitLinkGetLinkedCubin(raw, linked.cubin.data()))
    return failure(raw, r, "cubin copy");
  linked.infoLog = readLog(raw, false);
  return linked;
}

std::string mlir::mepi::jitLinkVersion() {
  unsigned major = 0, minor = 0;
  if (nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS)
    return "unknown";
  return llvm::formatv("{0}.{1}", major, minor);
}

bool mlir::mepi::reportsSpills(llvm::StringRef infoLog) {
  llvm::SmallVector<llvm::StringRef> lines;
  infoLog.split(lines, '\n');
  for (llvm::StringRef line : lines)
    for (llvm::StringRef what : {"bytes stack frame", "bytes spill stores"}) {
      size_t at = line.find(what);
      if (at == llvm::StringRef::npos)
        continue;
      // The count is the word before: "... 216 bytes stack frame, 428 bytes spill stores".
      llvm::StringRef count = line.take_front(at).rtrim().rsplit(' ').second;
      unsigned long long bytes = 0;
      if (!count.trim().getAsInteger(10, bytes) && bytes > 0)
        return true;
    }
  return false;
}
