// The GPU suite's cases of the one-tile rules (OneTileRules.cpp): a D narrow on one side takes
// one tile row or column as tall or wide as that side, chosen by the heuristic, and the swapped
// form split along K over 129-192 rows, forced; one row of 64-row tiles of the width whose
// waves fall most inside D.
#include "GpuCases.h"

void gputest::addOneTileCases(std::vector<Case> &cases) {
  // The heuristic's one tile column for a narrow D of many rows (the transposed route of a bias
  // per column), A given as [K, M]: 128 x 32 over 17 columns, 64 x 128 with TMA stores over
  // 120, 128 x 96 over 90 (staged rows of 180 bytes); residue rows and K.
  cases.push_back({ElementType::BF16, {1032, 14000}, {17, 1032}, {14000, 17}, true, true,
                   "GELU_BIAS"});
  cases.push_back({ElementType::F16, {1096, 8184}, {120, 1096}, {8184, 120}, true, true,
                   "RELU_BIAS"});
  cases.push_back({ElementType::BF16, {1032, 11000}, {90, 1032}, {11000, 90}, true, true, "GELU"});
  // Up to 256 columns: 64 x 192 over 190 ([K, M] A) and 64 x 160 over 150 ([M, K] A, too few
  // columns for the swapped form's two 128-column consumers), residue columns.
  cases.push_back({ElementType::BF16, {1032, 8000}, {190, 1032}, {8000, 190}, true, true,
                   "GELU_BIAS"});
  cases.push_back({ElementType::F16, {8000, 1032}, {150, 1032}, {8000, 150}, false, true,
                   "RELU_BIAS"});
  // The heuristic's one tile row for 129-192 rows of many columns: the swapped [160, 64] with
  // TMA stores over 150 rows of B given as [K, N], 192 x 128 (three consumers) over 190 rows,
  // [144, 64] over 136; residue rows, columns and K.
  cases.push_back({ElementType::F16, {150, 1032}, {1032, 8296}, {150, 8296}, false, false,
                   "DEFAULT"});
  cases.push_back({ElementType::BF16, {190, 1096}, {14000, 1096}, {190, 14000}, false, true,
                   "GELU_BIAS"});
  cases.push_back({ElementType::BF16, {136, 1032}, {8190, 1032}, {136, 8190}, false, true,
                   "RELU_BIAS"});
  // Few columns, forced (the cost model takes 64 x 64 on these two): the swapped [144, 64] in 3
  // splits over 140 rows of B given as [K, N], [176, 64] in 4 over 170; residue rows, columns
  // and K.
  Case splitMN{ElementType::BF16, {140, 4104}, {4104, 2808}, {140, 2808}, false, false,
               "GELU_BIAS"};
  splitMN.config = "#mepi.kernel_config<wgmma, tile = [144, 64, 64], mainloop = <stages = 7>, "
                   "scheduler = <split_k, splits = 3>, swapped = true>";
  cases.push_back(splitMN);
  Case splitRow{ElementType::F16, {170, 2056}, {2100, 2056}, {170, 2100}, false, true,
                "RELU_BIAS"};
  splitRow.config = "#mepi.kernel_config<wgmma, tile = [176, 64, 64], mainloop = <stages = 6>, "
                    "scheduler = <split_k, splits = 4>, swapped = true>";
  cases.push_back(splitRow);
  // At most 64 rows past one wave of 64-row tiles (shortRowWaveFit), the heuristic's widths:
  // 64 x 96 over 34408 columns, 64 x 160 over 40904 and 19000 (40 rows), 64 x 192 over 43656;
  // residue rows, columns and K.
  cases.push_back({ElementType::BF16, {61, 3128}, {34408, 3128}, {61, 34408}, false, true,
                   "GELU_BIAS"});
  cases.push_back({ElementType::F16, {50, 3240}, {40904, 3240}, {50, 40904}, false, true,
                   "RELU_BIAS"});
  cases.push_back({ElementType::BF16, {40, 4104}, {19000, 4104}, {40, 19000}, false, true,
                   "GELU"});
  cases.push_back({ElementType::F16, {64, 2216}, {43656, 2216}, {64, 43656}, false, true,
                   "DEFAULT"});
  // 64-row tiles of one consumer in whole units over a long K store D through TMA
  // (oneConsumerTmaStores): 64 x 128 over 57 rows and 24 k-steps, over 120 rows (two tile
  // rows) and 79; residue rows, columns and K.
  cases.push_back({ElementType::BF16, {57, 1500}, {16000, 1500}, {57, 16000}, false, true,
                   "GELU_BIAS"});
  cases.push_back({ElementType::F16, {120, 5000}, {7992, 5000}, {120, 7992}, false, true,
                   "BIAS"});
  // One wave of 128 x 64 tiles over a short K runs 64 x 128 of one consumer with TMA stores
  // (wideOneWave): 630 x 1400 x 3000 GELU_BIAS (47 k-steps), 1000 x 760 x 1992 BIAS; residue
  // rows, columns and K.
  cases.push_back({ElementType::BF16, {630, 3000}, {1400, 3000}, {630, 1400}, false, true,
                   "GELU_BIAS"});
  cases.push_back({ElementType::F16, {1000, 1992}, {760, 1992}, {1000, 760}, false, true,
                   "BIAS"});
}
