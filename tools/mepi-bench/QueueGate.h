// Holding a stream until the launches to be timed are all queued behind it.
#ifndef MEPI_TOOLS_QUEUEGATE_H
#define MEPI_TOOLS_QUEUEGATE_H

#include <cuda.h>

namespace bench {

/// On construction, queues on `stream` a one-thread kernel that spins until release() (or the
/// destructor) sets a flag from a stream of its own, or a second has passed. Event pairs queued
/// behind it then time the GPU's work alone: without it a launch whose host call takes longer
/// than its kernel (cublasLtMatmul's ~5-7 µs against a 6-µs kernel) is timed at the host's
/// pace, and the event pair measures the submission, not the kernel (bench/NOTES.md, The
/// seeded sweep). The second bounds a wait that a full launch queue would otherwise make
/// endless. `enabled` false (--ungated) makes it do nothing.
class QueueGate {
public:
  explicit QueueGate(CUstream stream);
  QueueGate(const QueueGate &) = delete;
  /// Releases without throwing: a launch that threw may be unwinding the stack.
  ~QueueGate();
  void release();

  static bool enabled;

private:
  bool held = false;
};

} // namespace bench

#endif // MEPI_TOOLS_QUEUEGATE_H
