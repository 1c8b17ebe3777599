// When a summary file and a trace are one rank (ranks/summary_identity.h).
#include "ranks/summary_identity.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace summary_identity_test {

RankSummary Summary(std::string path, int64_t rank = kNoValue) {
  RankSummary s;
  s.path = std::move(path);
  s.rank = rank;
  return s;
}

TEST(SummaryIdentityTest, ASummaryBesideTheTraceItNamesIsThatRank) {
  const RankSummary trace = Summary("/data/run/host.123.pt.trace.json");
  // gpuwhy.profile passes the path it was given: relative to where the job ran, or absolute.
  for (const char* named :
       {"gpuwhy-traces/host.123.pt.trace.json", "/home/me/job/gpuwhy-traces/host.123.pt.trace.json",
        "host.123.pt.trace.json"}) {
    EXPECT_TRUE(SummaryDescribesTrace(Summary(named), "/data/run/host.123.pt.trace.summary.json",
                                      trace, "/data/run/host.123.pt.trace.json"))
        << named;
  }
  // The same folder spelled two ways.
  EXPECT_TRUE(SummaryDescribesTrace(Summary("t.json"), "/data/run/./x/../t.summary.json",
                                    Summary("t.json"), "/data/run/t.json"));
}

TEST(SummaryIdentityTest, OtherRanksAndOtherFoldersAreRanksOfTheirOwn) {
  const RankSummary trace = Summary("/data/run/rank0.json", 0);
  // Another trace's summary in the same folder.
  EXPECT_FALSE(SummaryDescribesTrace(Summary("rank1.json", 1), "/data/run/rank1.summary.json",
                                     trace, "/data/run/rank0.json"));
  // Its summary, but collected into another folder (the Slurm epilogue's shared folder).
  EXPECT_FALSE(SummaryDescribesTrace(Summary("rank0.json", 0), "/shared/rank0.summary.json", trace,
                                     "/data/run/rank0.json"));
  // A file of the same name that says it is another rank (a rerun's trace).
  EXPECT_FALSE(SummaryDescribesTrace(Summary("rank0.json", 3), "/data/run/rank0.summary.json",
                                     trace, "/data/run/rank0.json"));
  // A summary that names no trace.
  EXPECT_FALSE(SummaryDescribesTrace(Summary(""), "/data/run/rank0.summary.json", trace,
                                     "/data/run/rank0.json"));
}

}  // namespace summary_identity_test
}  // namespace gpuwhy
