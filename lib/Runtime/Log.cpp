// The process-wide log sink (mepi/Log.h).
#include "Runtime/Log.h"

#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <mutex>

namespace {
std::mutex sinkMutex;          // held while the sink is replaced or called
mepi::LogSink *sink = nullptr; // owned; null: the default
std::atomic<bool> hasSink{false};
} // namespace

void mepi::runtime::replaceLogSink(LogSink newSink) {
  std::lock_guard<std::mutex> lock(sinkMutex);
  delete sink;
  sink = newSink ? new LogSink(std::move(newSink)) : nullptr;
  hasSink = sink != nullptr;
}

bool mepi::runtime::logged(LogLevel level) {
  return hasSink || level >= LogLevel::Warning;
}

void mepi::runtime::logMessage(LogLevel level, const std::string &message) {
  std::lock_guard<std::mutex> lock(sinkMutex);
  if (sink)
    (*sink)(level, message);
  else if (level >= LogLevel::Warning)
    llvm::errs() << "mepi: warning: " << message << "\n";
}
