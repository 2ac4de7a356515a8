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
/// chunk ends in short pieces, each long enough that its GEMM hides the copies of the piece
/// before it. Copying a row of D to a peer takes 2 N bytes at ~345 GB/s, multiplying it 2 N K
/// FLOP at ~750 TFLOP/s (2x H200, bench/NOTES.md), and each row goes to `ranks` - 1 peers, one
/// copy after another: a row's GEMM lasts K / kRowCopyK / (ranks - 1) times its copies.
/// - One short piece: the last needs rows / (1 + that) rows; at least kTailElements (8 MiB of
///   bf16, about one wave of 128 x 256 tiles), in whole 256-row tiles.
/// - Two (`tailPieces` 2; -1 takes them on 2 ranks, the only count measured): the last exactly
///   kTailElements (one wave, its copy all that follows the GEMMs), the one before it a whole
///   number of those whose copy the last GEMM hides with kCopyMargin to spare (NVLink beside
///   the GEMMs moved ~295 GB/s, not 345), the first piece the rest and at least as long: on
///   16384 x 4096 x 14336 over 2 ranks [5120, 2048, 1024] rows, whole waves each (5, 2, 1 of
///   128 x 256 tiles; [3840, 3328, 1024] measured 0.86: a partial wave; [4096, 3072, 1024] no
///   gain: its middle copy as long as the last GEMM).
/// Empty where it cannot help: short chunks, or copies as slow as the GEMMs (4 ranks: equal
/// pieces measured 0.665 / 0.803 against the tail's 0.558 / 0.783 on 16384 / 8192 rows).
std::vector<int64_t> plan::allReduceTail(int64_t rows, int64_t n, int64_t k, int ranks,
                                         int tailPieces) {
  constexpr double kRowCopyK = 2200, kCopyMargin = 0.65;
  constexpr int64_t kTailElements = 4 << 20, kTileRows = 256;
  double hidden = static_cast<double>(k) / kRowCopyK / std::max(ranks - 1, 1);
  auto tiles = [&](double r) {
    return (static_cast<int64_t>(std::ceil(r)) + kTileRows - 1) / kTileRows * kTileRows;
  };
  if (hidden < 1.5 || tailPieces == 0)
    return {};
  int64_t wave = tiles(static_cast<double>(kTailElements) / n);
  if (tailPieces == 2 || (tailPieces < 0 && ranks == 2)) {
    int64_t middle = wave * static_cast<int64_t>(kCopyMargin * hidden);
    if (middle > 0 && rows - wave - middle >= middle)
      return {middle, wave};
  }
  int64_t last = std::max(wave, tiles(rows / (1 + hidden)));
  if (rows - last < last)
    return {};
  return {last};
}
