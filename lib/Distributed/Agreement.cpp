// Collective agreement's local half (Agreement.h): the words and the judgement; Group.cpp
// exchanges them.
#include "Distributed/Agreement.h"

#include "mepi/Errors.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <stdexcept>

using namespace mepi::dist::detail;

Agreement &Agreement::fact(const char *name, int64_t value,
                           std::function<std::string(int64_t)> show) {
  if (mine.facts == Word::kMaxFacts)
    throw mepi::Error("mepi::dist: internal: too many facts to agree on", Status::Internal);
  mine.fact[mine.facts++] = value;
  names.push_back({name, std::move(show)});
  return *this;
}

Agreement &Agreement::data(const void *bytes, size_t size) {
  if (size > sizeof(mine.data))
    throw mepi::Error("mepi::dist: internal: agreement data too large", Status::Internal);
  std::memcpy(mine.data, bytes, size);
  return *this;
}

void Agreement::attempt(const std::function<void()> &step) {
  if (error)
    return;
  try {
    step();
  } catch (...) {
    refuse(std::current_exception());
  }
}

void Agreement::refuse(std::exception_ptr e) {
  if (error)
    return;
  error = e;
  mine.status = static_cast<int32_t>(Status::Internal);
  try {
    std::rethrow_exception(e);
  } catch (const mepi::Error &known) {
    mine.status = static_cast<int32_t>(known.status());
  } catch (...) {
  }
}

void Agreement::judge(const std::vector<Word> &words, int rank, const std::string &what) const {
  for (size_t r = 1; r < words.size(); ++r)
    if (words[r].step != words[0].step)
      throw mepi::Error(llvm::formatv("{0}: rank {1} is at another collective step than rank 0 "
                                      "(a rank skipped or added a collective call: every rank "
                                      "must make the same calls in the same order)",
                                      what, r),
                        Status::InvalidValue);
  for (size_t r = 0; r < words.size(); ++r) {
    if (words[r].status == 0)
      continue;
    if ((int)r == rank && error)
      std::rethrow_exception(error);
    throw mepi::Error(llvm::formatv("{0}: rank {1} refused the problem ({2}; its own error says "
                                    "why), so every rank does",
                                    what, r, statusName(Status(words[r].status))),
                      Status(words[r].status));
  }
  auto spell = [](const Named &n, int64_t v) { return n.show ? n.show(v) : std::to_string(v); };
  for (size_t r = 1; r < words.size(); ++r) {
    if (words[r].facts != words[0].facts)
      throw mepi::Error(llvm::formatv("{0}: rank {1} says {2} facts, rank 0 {3}: every rank "
                                      "must run the same mepi",
                                      what, r, words[r].facts, words[0].facts),
                        Status::InvalidValue);
    for (int i = 0; i < words[0].facts && i < (int)names.size(); ++i)
      if (words[r].fact[i] != words[0].fact[i])
        throw mepi::Error(llvm::formatv("{0}: the ranks describe different problems: rank {1} "
                                        "gives {2} = {3}, rank 0 gives {4}; every rank must "
                                        "pass the same",
                                        what, r, names[i].name, spell(names[i], words[r].fact[i]),
                                        spell(names[i], words[0].fact[i])),
                          Status::InvalidValue);
  }
}
