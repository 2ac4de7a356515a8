// mepi-bench's dense, batched, catalog, f32 and sweep runs: the geometric means a run prints and
// writes to its JSON.
#ifndef MEPI_TOOLS_RUNTOTALS_H
#define MEPI_TOOLS_RUNTOTALS_H

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bench {

/// The run's geometric means: over every problem, over the aligned ones, and (--autotune) of
/// the heuristic's choice's time over the fastest candidate's.
struct Totals {
  double logSum = 0, alignedLogSum = 0, alignedMin = 0, heuristicLogSum = 0;
  int counted = 0, alignedCounted = 0, alignedBelow90 = 0, tunedCounted = 0,
      heuristicWithin3 = 0;
  void add(bool aligned, double ratio) {
    logSum += std::log(ratio);
    ++counted;
    if (!aligned)
      return;
    alignedLogSum += std::log(ratio);
    alignedMin = alignedCounted++ ? std::min(alignedMin, ratio) : ratio;
    alignedBelow90 += ratio < 0.9;
  }
  void addTuned(double overBest) {
    ++tunedCounted;
    heuristicWithin3 += overBest <= 1.03;
    heuristicLogSum += std::log(overBest);
  }
  double geomean() const { return counted ? std::exp(logSum / counted) : 0; }
  double alignedGeomean() const {
    return alignedCounted ? std::exp(alignedLogSum / alignedCounted) : 0;
  }
  double heuristicGeomean() const {
    return tunedCounted ? std::exp(heuristicLogSum / tunedCounted) : 0;
  }
  void print() const {
    std::printf("geometric mean of mepi/cuBLASLt ratios over %d problems: %.3f\n", counted,
                geomean());
    std::printf("over the %d aligned ones (the sweep: M, N, K multiples of 64; else N and K): "
                "geometric mean %.3f, lowest %.3f, %d under 0.90\n",
                alignedCounted, alignedGeomean(), alignedMin, alignedBelow90);
    if (tunedCounted)
      std::printf("the heuristic's choice within 3%% of autotune's best on %d of %d problems; "
                  "geometric mean of its time over the best %.3f\n",
                  heuristicWithin3, tunedCounted, heuristicGeomean());
  }
};

} // namespace bench

#endif // MEPI_TOOLS_RUNTOTALS_H
