// mepi-bench's command line (the flags mepi-bench.cpp's header comment lists).
#ifndef MEPI_BENCH_BENCHOPTIONS_H
#define MEPI_BENCH_BENCHOPTIONS_H

#include "BenchSupport.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace bench {

/// What the command line asks for.
struct Options {
  bool quick = false, catalog = false, user = false, batched = false, tf32 = false, f32 = false,
       grouped = false, groupedK = false, fp8 = false, list = false;
  bool rowMajorB = false; ///< --layout nn: B is K x N row-major
  bool autotune = false;  ///< --autotune: Matmul::autotune() before timing
  bool confirm = false;   ///< --confirm: the heuristic's and autotune's best choices timed again
  bool ungated = false;   ///< --ungated: no QueueGate (each launch timed at the host's pace)
  std::string forcedConfig;         ///< --config: Options::kernelConfig for every mepi problem
  std::vector<std::string> against; ///< --against: configurations timed beside the row's own
  std::optional<uint64_t> sweepSeed;
  int skip = 0; ///< --skip N: leaves out the first N problems selected (to split a long run)
  std::string jsonPath, ltoirPath, command;
  std::vector<std::string> filters;
  std::deque<std::string> shapeLabels; ///< --shape labels (stable addresses for Shape::name)
  std::vector<Shape> givenShapes;
  std::vector<std::string> sweepNames; ///< --sweep's problem names (Shape::name points there)
};

/// The options of argv, or nullopt (after saying why) when one is malformed. --stream sets
/// bench::streamTiming.
std::optional<Options> parseOptions(int argc, char **argv);

} // namespace bench

#endif
