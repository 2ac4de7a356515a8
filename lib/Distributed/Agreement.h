// Collective agreement: what every rank says before the group takes a collective step.
//
// A rank that refuses a problem (a bad operand, an allocation that failed) must not simply
// throw: its peers would wait in the next exchange it never joins, or pair that exchange with
// a different one. And ranks that describe different problems (another dtype, pieces, epilog)
// would size their shared buffers differently and overrun each other's. So each collective
// step begins with an exchange of words: each rank's verdict on its own checks, the facts every
// rank must give alike, and data of its own (shapes, IPC handles). Every rank judges the same
// table and so throws alike: the refusing rank its own error, the others one naming it.
#ifndef MEPI_DISTRIBUTED_AGREEMENT_H
#define MEPI_DISTRIBUTED_AGREEMENT_H

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace mepi::dist::detail {

/// One rank's word, exchanged as plain bytes.
struct Word {
  static constexpr int kMaxFacts = 28, kDataBytes = 64;
  /// Which exchange this is (a hash of its name, set by Group::agree): ranks that reach
  /// different exchanges (one of them skipped a collective call) are told so.
  uint64_t step = 0;
  int32_t status = 0; ///< 0: its checks passed; else its error's mepi::Status
  int32_t facts = 0;
  int64_t fact[kMaxFacts] = {};
  char data[kDataBytes] = {};
};

class Agreement {
public:
  /// A value every rank must give alike; `show` spells it in the error (default: the number).
  Agreement &fact(const char *name, int64_t value,
                  std::function<std::string(int64_t)> show = nullptr);
  /// This rank's own bytes (at most Word::kDataBytes), handed to every rank.
  Agreement &data(const void *bytes, size_t size);
  /// Runs `step` unless an earlier one failed; a failure becomes this rank's refusal.
  void attempt(const std::function<void()> &step);
  /// This rank refuses with `error` (the first refusal is kept).
  void refuse(std::exception_ptr error);
  bool refused() const { return bool(error); }
  const Word &word() const { return mine; }
  /// Given every rank's word, returns when all are at the same step, passed their checks and
  /// gave the same facts; otherwise throws, alike on every rank: ranks at different steps, else
  /// the lowest refusing rank's error (its own on that rank, one naming it elsewhere), else the
  /// first fact in which a rank differs from rank 0.
  void judge(const std::vector<Word> &words, int rank, const std::string &what) const;

private:
  struct Named {
    const char *name;
    std::function<std::string(int64_t)> show;
  };
  std::vector<Named> names;
  Word mine;
  std::exception_ptr error;
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_AGREEMENT_H
