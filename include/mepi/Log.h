// Where mepi's runtime says what it does: plans (the kernel configuration chosen), the kernel
// cache (hits in memory or on disk, compiles and their time), autotune's candidates, and
// warnings (a disk cache that cannot be used). By default warnings go to stderr and the rest
// nowhere; a sink receives all of them, from any thread (one message at a time).
//
//   mepi::setLogSink([](mepi::LogLevel level, const std::string &message) { ... });
#ifndef MEPI_LOG_H
#define MEPI_LOG_H

#include <functional>
#include <string>

namespace mepi {

/// The levels of Python's logging module, whose numbers they share.
enum class LogLevel { Debug = 10, Info = 20, Warning = 30 };

using LogSink = std::function<void(LogLevel, const std::string &)>;

/// Sends the runtime's messages to `sink` (process-wide); an empty sink restores the default.
/// The sink is called with a lock held: it must not call into mepi (which may log); what it
/// throws is dropped.
void setLogSink(LogSink sink);

} // namespace mepi

#endif // MEPI_LOG_H
