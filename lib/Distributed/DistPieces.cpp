// How a chunk of rows is cut into the pieces that travel and are multiplied one by one
// (DistPlan.h): equal pieces, or all-reduce's short last piece.
#include "Distributed/DistPlan.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

using namespace mepi::dist;
using namespace mepi::dist::plan;

std::vector<Range> plan::rowPieces(Range range, int pieces, llvm::ArrayRef<int64_t> tail) {
  std::vector<Range> out;
  if (!tail.empty()) {
    int64_t at = range.offset + range.size;
    for (int64_t rows : llvm::reverse(tail)) {
      at -= rows;
      out.insert(out.begin(), Range{at, rows});
    }
    out.insert(out.begin(), Range{range.offset, at - range.offset});
    return out;
  }
  pieces = std::max(pieces, 1);
  int64_t step = (range.size + pieces - 1) / pieces;
  step = std::max<int64_t>(128, (step + 127) / 128 * 128);
  for (int64_t at = 0; at < range.size; at += step)
    out.push_back({range.offset + at, std::min(step, range.size - at)});
  if (out.empty())
    out.push_back({range.offset, 0});
  return out;
}

/// AllReduce's last copies (a chunk's finished rows to every peer) follow the last GEMM: a
/// chunk goes in two pieces, the last short, yet long enough that its GEMM hides the copies of
/// the first. Copying a row of D to a peer takes 2 N bytes at ~345 GB/s, multiplying it 2 N K
/// FLOP at ~750 TFLOP/s (2x H200, bench/NOTES.md), and each row goes to `ranks` - 1 peers, one
/// copy after another: a row's GEMM lasts K / kRowCopyK / (ranks - 1) times its copies, so the
/// last piece needs rows / (1 + that) rows; at least kTailElements (8 MiB of bf16, about one
/// wave of 128 x 256 tiles), in whole 256-row tiles. (Three pieces, the middle one's copy
/// hidden by the last, measured no better: one more GEMM ending in a partial wave.) Empty
/// where it cannot help: short chunks, or copies as slow as the GEMMs (4 ranks: equal pieces
/// measured 0.665 / 0.803 against the tail's 0.558 / 0.783 on 16384 / 8192 rows).
std::vector<int64_t> plan::allReduceTail(int64_t rows, int64_t n, int64_t k, int ranks) {
  constexpr double kRowCopyK = 2200;
  constexpr int64_t kTailElements = 4 << 20, kTileRows = 256;
  double hidden = static_cast<double>(k) / kRowCopyK / std::max(ranks - 1, 1);
  auto tiles = [&](double r) {
    return (static_cast<int64_t>(std::ceil(r)) + kTileRows - 1) / kTileRows * kTileRows;
  };
  int64_t last = std::max(tiles(static_cast<double>(kTailElements) / n),
                          tiles(rows / (1 + hidden)));
  if (hidden < 1.5 || rows - last < last)
    return {};
  return {last};
}
