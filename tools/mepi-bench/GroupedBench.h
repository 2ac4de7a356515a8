// mepi-bench --grouped: mepi's grouped matmul on mixture-of-experts shapes against (a) a loop of
// cuBLASLt matmuls, one per non-empty group, and (b) one dense cuBLASLt matmul of the same total
// FLOPs (T x N x K), timed interleaved in one run.
//
// Each problem: x [T, K] (bf16), w [G, N, K] (nn.Linear's weights: K-major), group ends int32
// [G] on the device (torch._grouped_mm's offs), D [T, N] row-major, optionally with a bias
// [G, N] (one value per output feature of each expert). Group sizes are drawn from a seeded
// generator: multiples of 16 summing to T for the prefill shapes, 0-8 rows per expert (or T rows
// spread over the experts) for the decode ones. For decode, the figure that matters is how fast
// the active experts' weights stream from memory: it is reported against a device-to-device
// copy's bandwidth measured in the same run. With --fp8, x and w are e4m3 with tensor-wise
// scales (x's a scalar, w's one per expert) and D bf16, against cuBLASLt's FP8 matmuls with the
// same scaling and promoted sums, without a bias.
#ifndef MEPI_TOOLS_GROUPEDBENCH_H
#define MEPI_TOOLS_GROUPEDBENCH_H

#include "BenchSupport.h"

#include <string>
#include <vector>

namespace bench {
struct GroupedRunOptions {
  bool quick = false;
  std::vector<std::string> filters;
  std::string forcedConfig, jsonPath, command;
  const char *device = "", *date = "";
  bool fp8 = false; ///< --grouped --fp8: e4m3 x and w, tensor-wise scales (DEFAULT only)
};

/// Runs the grouped set; returns the process's exit status.
int runGroupedBench(cublasLtHandle_t lt, CUstream stream, const GroupedRunOptions &options);
/// Runs the weight gradients of the grouped set's prefill shapes (GroupedKBench.cpp).
int runGroupedKBench(cublasLtHandle_t lt, CUstream stream, const GroupedRunOptions &options);

struct GroupedShape {
  const char *name;
  int64_t groups, tokens, n, k;
  int64_t maxRows = 0; ///< decode: each expert gets 0..maxRows rows (tokens is then their sum)
};
extern const GroupedShape kGroupedShapes[];
extern const size_t kGroupedShapeCount;
/// Group sizes from a seeded generator: 0..maxRows each (decode), T rows one by one to random
/// experts (few tokens), or multiples of 16 in random proportions summing to T.
std::vector<int64_t> drawSizes(const GroupedShape &s, uint64_t seed);
/// The bandwidth of a device-to-device copy of 1 GiB (bytes read plus bytes written per second).
double copyBandwidthGBs(CUstream stream);
/// Whether `s` is decode-shaped: fewer than 16 rows an expert on average, so that the weights'
/// bytes, not the FLOPs, set its time (its figure is the weights' read rate, not a ratio to a
/// dense matmul of the same FLOPs).
bool decodeShaped(const GroupedShape &s);
/// What a grouped run's summary line and JSON report: the geometric mean of the dense ratios
/// over the prefill-shaped problems, and the lowest weight read rate (a fraction of the device
/// copy's) over the decode-shaped ones.
struct GroupedSummary {
  double logPrefill = 0, lowestDecodeCopy = 0;
  int prefill = 0, decode = 0;
  /// Counts a measured problem: `vsDense` (dense time / mepi time) or, decode-shaped,
  /// `copyFraction`.
  void add(bool isDecode, double vsDense, double copyFraction);
};
/// Prints the summary and writes the JSON (`layout`, `meaning`, the device copy bandwidth, the
/// result `rows`) where options.jsonPath asks for it.
void finishGroupedRun(const GroupedRunOptions &options, const char *layout, const char *meaning,
                      double copyGBs, const GroupedSummary &summary, const std::string &rows);
} // namespace bench

#endif // MEPI_TOOLS_GROUPEDBENCH_H
