// MEPI_DIST_TRACE=<n>: the n-th execute() of each distributed plan records an event after
// every step of its schedule, on the stream the step runs on, waits for them, and prints when
// each step finished (ms after the execute began) to stderr, one line a step. This shows where
// a schedule waits (a GEMM that starts late, a copy that ends after the last GEMM) without a
// system profiler. The traced execute is synchronous; the others are untouched.
#ifndef MEPI_DISTRIBUTED_TIMELINE_H
#define MEPI_DISTRIBUTED_TIMELINE_H

#include "Runtime/CudaDriver.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mepi::dist::detail {

/// Which execute() the environment asks to trace (0: none).
uint32_t tracedExecute();

class Timeline {
public:
  Timeline(const runtime::CudaDriver &driver, size_t steps);
  ~Timeline();
  Timeline(const Timeline &) = delete;
  Timeline &operator=(const Timeline &) = delete;

  /// The execute begins: the reference point, recorded on `stream`.
  void start(CUstream stream);
  /// Step `step` was queued on `stream`: its end.
  void mark(size_t step, CUstream stream);
  /// Waits for every event, then one line per marked step: "rank R  +t ms  <describe(step)>".
  std::string report(int rank, const std::function<std::string(size_t)> &describe) const;

private:
  void destroy();

  const runtime::CudaDriver &driver;
  CUevent begin = nullptr;
  std::vector<CUevent> ends;
  std::vector<bool> marked;
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_TIMELINE_H
