// The seeded random sweep: problems nobody tuned the heuristic on (issue: a heuristic that
// generalizes). The same seed gives the same problems on every machine.
#ifndef MEPI_BENCH_SWEEP_H
#define MEPI_BENCH_SWEEP_H

#include "BenchSupport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct SweepProblem {
  Shape shape;         ///< its name is "sw<index>"
  bool bf16 = true;    ///< else fp16
  bool geluBias = false; ///< else DEFAULT
  bool aligned = false;  ///< M, N and K rounded to multiples of 64
};

/// `count` unbatched problems and `batched` batched ones from `seed` (std::mt19937_64):
///   - unbatched: M log-uniform in [1, 65536], N and K in [64, 65536]; every other problem
///     rounded up to multiples of 64 (`aligned`);
///   - batched: the batch log-uniform in [2, 128], M, N and K in [64, 4096], aligned, every
///     fourth sharing one B;
///   - each problem's dtype (bf16 / fp16) and epilog (DEFAULT / GELU_BIAS) drawn with it;
///   - kept only when N·K <= 2^28, M·N <= 2^30 (the bounds), M·K <= 2^31 (the
///     operands' random fill and memory) and 2·M·N·K <= 2^46 FLOP a batch element (a run
///     under ~0.1 s), drawing again otherwise.
/// `names` receives the problems' names (Shape::name points into it; it must outlive them).
std::vector<SweepProblem> sweepProblems(uint64_t seed, int count, int batched,
                                        std::vector<std::string> &names);

} // namespace bench

#endif // MEPI_BENCH_SWEEP_H
