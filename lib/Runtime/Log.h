// The runtime's side of mepi/Log.h: what the planner, the kernel cache and autotune say.
#ifndef MEPI_RUNTIME_LOG_H
#define MEPI_RUNTIME_LOG_H

#include "mepi/Log.h"

#include <functional>

namespace mepi::runtime {

/// mepi::setLogSink (which the shared library exports; this one stays inside it).
void replaceLogSink(LogSink sink);
/// Whether a message at `level` goes anywhere (so that callers format only those that do).
bool logged(LogLevel level);
/// Hands `message` to the sink (or, without one, a warning to stderr).
void logMessage(LogLevel level, const std::string &message);
/// logMessage(level, text()) where logged(level).
inline void logLazily(LogLevel level, const std::function<std::string()> &text) {
  if (logged(level))
    logMessage(level, text());
}

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_LOG_H
