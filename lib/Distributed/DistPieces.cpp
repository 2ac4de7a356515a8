// How a chunk of rows is cut into the pieces that travel and are multiplied one by one
// (DistPlan.h): equal pieces, or all-reduce's short last piece.
#include "Distributed/DistPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

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

/// Copying a row of bf16 D to a peer lasts as long as multiplying it over K = kRowCopyK: 2 N
/// bytes at ~345 GB/s against 2 N K FLOP at ~750 TFLOP/s (2x H200, bench/NOTES.md).
constexpr double kRowCopyK = 2200;

/// AllReduce's last copies (a chunk's finished rows to every peer) follow the last GEMM: a
/// chunk ends in short pieces, each long enough that its GEMM hides the copies of the piece
/// before it. Each row goes to `ranks` - 1 peers, one copy after another: a row's GEMM lasts
/// K / kRowCopyK / (ranks - 1) times its copies.
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
  constexpr double kCopyMargin = 0.65;
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

std::vector<Range> plan::slabsOf(int64_t extent, int ranks) {
  std::vector<Range> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back(slabRange(extent, ranks, r));
  return out;
}

std::vector<Range> plan::alignedSlabs(int64_t extent, int ranks) {
  std::vector<int64_t> starts;
  for (int r = 0; r < ranks; ++r)
    starts.push_back(std::min<int64_t>(
        extent, static_cast<int64_t>(llvm::alignTo(slabRange(extent, ranks, r).offset, 128))));
  starts.push_back(extent);
  std::vector<Range> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back({starts[r], starts[r + 1] - starts[r]});
  return out;
}

/// A band's all-gather (its finished rows copied to every peer, between the next band's ring
/// copies on the one copy stream) runs under the next band's GEMMs, so that only the last
/// band's is exposed. But the copy engine carries both, and a rank sends 2 (P - 1) / P of D's
/// rows: bands lose where the copies take over half of the GEMMs' time, or where a band's
/// chunks fall under 4 kMemoryBoundRows rows (one piece, whose copy waits for its whole GEMM).
/// Two bands from 4 ranks on where neither holds (4 H200s, bench/NOTES.md: 8192 x 8192 x 28672
/// 0.79 -> 0.82-0.84, weak 8192 x 8192 0.80 -> 0.83; copies as long as the GEMMs, 16384 x 4096
/// x 14336, 0.67 -> 0.59; 512-row chunks, 4096 x 8192, 0.75 -> 0.60); one on 2 ranks (0.94-0.97
/// with one). Asked bands keep kMemoryBoundRows rows a chunk.
std::vector<std::vector<Range>> plan::allReduceBands(const DistPlan &p, const Request &q,
                                                     int64_t k) {
  double rowBytes = static_cast<double>(std::max<int64_t>(q.dElementBytes, 2));
  double copyShare = 2.0 * (q.ranks - 1) / q.ranks * kRowCopyK * rowBytes / 2 /
                     static_cast<double>(std::max<int64_t>(k, 1));
  bool longChunks = p.m / (2 * q.ranks) >= 4 * kMemoryBoundRows;
  bool twoBands = q.ranks >= 4 && copyShare <= 0.5 && longChunks;
  int count = q.bands > 0 ? q.bands : twoBands ? 2 : 1;
  while (count > 1 && p.m / (count * q.ranks) < kMemoryBoundRows)
    --count;
  if (count == 1)
    return {p.chunks};
  std::vector<std::vector<Range>> out;
  for (const Range &band : alignedSlabs(p.m, count)) {
    std::vector<Range> chunks = q.alignedFinalRows ? alignedSlabs(band.size, q.ranks)
                                                   : slabsOf(band.size, q.ranks);
    for (Range &c : chunks)
      c.offset += band.offset;
    out.push_back(chunks);
  }
  return out;
}
