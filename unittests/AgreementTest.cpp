// Collective agreement's judgement (Agreement.h) without a group: every rank's word is built
// here, and each rank's judgement of the same table is checked to throw alike.
#include "Distributed/Agreement.h"

#include "mepi/Errors.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace mepi;
using namespace mepi::dist::detail;

namespace {
/// Rank `rank`'s word with options.pieces = `pieces` and its shape as data.
Agreement says(int64_t pieces, int64_t rows) {
  Agreement a;
  a.fact("a's dtype", 3, [](int64_t v) { return "dtype " + std::to_string(v); })
      .fact("options.pieces", pieces);
  a.data(&rows, sizeof(rows));
  return a;
}

/// What judging `words` throws on `rank` ("" when it returns), with the status.
std::pair<std::string, Status> verdict(const Agreement &mine, const std::vector<Word> &words,
                                       int rank) {
  try {
    mine.judge(words, rank, "test");
  } catch (const Error &e) {
    return {e.what(), e.status()};
  }
  return {"", Status::Internal};
}
} // namespace

TEST(Agreement, RanksThatAgreePassAndShareTheirData) {
  Agreement r0 = says(2, 100), r1 = says(2, 99);
  std::vector<Word> words = {r0.word(), r1.word()};
  EXPECT_EQ(verdict(r0, words, 0).first, "");
  EXPECT_EQ(verdict(r1, words, 1).first, "");
  int64_t rows;
  std::memcpy(&rows, words[1].data, sizeof(rows));
  EXPECT_EQ(rows, 99);
}

TEST(Agreement, ARefusalThrowsOnEveryRank) {
  Agreement r0 = says(2, 100), r1 = says(2, 99);
  bool later = false;
  r1.attempt([] { throw Error("operand a: rank 2 expected", Status::NotSupported); });
  r1.attempt([&] { later = true; }); // skipped after a failure
  EXPECT_FALSE(later);
  EXPECT_TRUE(r1.refused());
  std::vector<Word> words = {r0.word(), r1.word()};
  auto [own, ownStatus] = verdict(r1, words, 1);
  EXPECT_EQ(own, "operand a: rank 2 expected");
  EXPECT_EQ(ownStatus, Status::NotSupported);
  auto [other, otherStatus] = verdict(r0, words, 0);
  EXPECT_NE(other.find("test: rank 1 refused the problem (not supported"), std::string::npos)
      << other;
  EXPECT_EQ(otherStatus, Status::NotSupported);
}

TEST(Agreement, AnExceptionOtherThanMepisIsAnInternalRefusal) {
  Agreement r0 = says(2, 1);
  r0.attempt([] { throw std::bad_alloc(); });
  EXPECT_EQ(r0.word().status, static_cast<int32_t>(Status::Internal));
  Agreement r1 = says(2, 1);
  EXPECT_EQ(verdict(r1, {r0.word(), r1.word()}, 1).second, Status::Internal);
}

TEST(Agreement, DifferentFactsThrowAlikeNamingTheFact) {
  Agreement r0 = says(2, 100), r1 = says(4, 99);
  std::vector<Word> words = {r0.word(), r1.word()};
  std::string expected = "test: the ranks describe different problems: rank 1 gives "
                         "options.pieces = 4, rank 0 gives 2; every rank must pass the same";
  EXPECT_EQ(verdict(r0, words, 0).first, expected);
  EXPECT_EQ(verdict(r1, words, 1).first, expected);
  Agreement r2;
  r2.fact("a's dtype", 1, [](int64_t v) { return "dtype " + std::to_string(v); })
      .fact("options.pieces", 2);
  std::string spelled = verdict(r0, {r0.word(), r2.word()}, 0).first;
  EXPECT_NE(spelled.find("a's dtype = dtype 1, rank 0 gives dtype 3"), std::string::npos)
      << spelled;
}

TEST(Agreement, TooMuchIsAnInternalError) {
  Agreement a;
  for (int i = 0; i < Word::kMaxFacts; ++i)
    a.fact("f", i);
  EXPECT_THROW(a.fact("one more", 0), Error);
  char big[Word::kDataBytes + 1] = {};
  EXPECT_THROW(a.data(big, sizeof(big)), Error);
}

TEST(Agreement, RanksAtDifferentStepsAreToldSoBeforeAnythingElse) {
  Agreement r0 = says(2, 1), r1 = says(4, 1);
  r1.refuse(std::make_exception_ptr(Error("a refusal of another exchange")));
  std::vector<Word> words = {r0.word(), r1.word()};
  words[1].step = 42; // rank 1 is in another collective call (Group::agree sets the step)
  for (int rank = 0; rank < 2; ++rank) {
    std::string m = verdict(rank ? r1 : r0, words, rank).first;
    EXPECT_NE(m.find("rank 1 is at another collective step than rank 0"), std::string::npos)
        << m;
  }
}
