// The one classifier: hand-made heads for every kind, and every real file of ../shared/data
// whose folder says what it is.
#include "ingest/input_kind.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

namespace gpuwhy {
namespace input_kind_test {

namespace fs = std::filesystem;

InputKind KindOf(std::string_view head, bool gzip = false, bool complete = true) {
  return ClassifyHead(head, gzip, complete).kind;
}

TEST(InputKindTest, HeadsOfEveryKind) {
  EXPECT_EQ(KindOf(""), InputKind::kEmpty);
  EXPECT_EQ(KindOf(" \n\t"), InputKind::kEmpty);
  EXPECT_EQ(KindOf(" \n\t", false, /*complete=*/false), InputKind::kKinetoJson);  // more may follow
  EXPECT_EQ(KindOf("\xEF\xBB\xBF{\"traceEvents\": []}"), InputKind::kKinetoJson);
  EXPECT_EQ(KindOf("[{\"ph\": \"X\"}]"), InputKind::kKinetoJson);
  EXPECT_EQ(KindOf("{\"traceEvents\":[}"),
            InputKind::kKinetoJson);  // broken JSON: the importer says why
  EXPECT_EQ(KindOf(std::string_view("SQLite format 3\0rest", 20)), InputKind::kNsysSqlite);
  EXPECT_EQ(KindOf("{\"gpuwhy_rank_summary\": 1, \"rank\": 0}"), InputKind::kRankSummary);
  EXPECT_EQ(KindOf("{\"schema_version\": 1, \"tool\": \"gpuwhy\", \"ranks\": []}"),
            InputKind::kGpuwhyReport);
  EXPECT_EQ(KindOf(std::string_view("\x80\x04\x95\x10\x00", 5)), InputKind::kPythonPickle);
  // Protocols 0 and 1 write no PROTO: a dict or list opens them (issue 38).
  EXPECT_EQ(KindOf("(dp0\nVsegments\np1\n"), InputKind::kPythonPickle);
  EXPECT_EQ(KindOf("(lp0\n(dp1\n"), InputKind::kPythonPickle);
  EXPECT_EQ(KindOf("(dVsegments\n(l"), InputKind::kPythonPickle);  // the memo off
  EXPECT_EQ(KindOf(std::string_view("}q\x00(X\x08\x00\x00\x00segments", 17)),
            InputKind::kPythonPickle);
  EXPECT_EQ(KindOf(std::string_view("]q\x00(}q\x01", 7)), InputKind::kPythonPickle);
  EXPECT_NE(KindOf("(dp is not a memo key\n"), InputKind::kPythonPickle);
  EXPECT_NE(KindOf("(d) a list item in prose\n"), InputKind::kPythonPickle);
  EXPECT_EQ(KindOf("|  PyTorch CUDA memory summary, device ID 0  |\n"), InputKind::kMemorySummary);
  EXPECT_EQ(KindOf("just some prose\n"), InputKind::kUnknown);
  EXPECT_EQ(KindOf("just some prose\n", /*gzip=*/true), InputKind::kKinetoJson);
}

// A memory_stats() dict is memory text as JSON, as a Python literal and inside a log; a JSON
// object with fewer than three of its keys stays a trace for the Kineto importer to judge.
TEST(InputKindTest, MemoryStatsDictsAreMemoryText) {
  EXPECT_EQ(KindOf(R"({"active.all.current": 1, "num_ooms": 0, "reserved_bytes.all.peak": 3})"),
            InputKind::kMemorySummary);
  EXPECT_EQ(KindOf("OrderedDict([('active.all.current', 1), ('num_ooms', 0), "
                   "('segment.all.peak', 3)])\n"),
            InputKind::kMemorySummary);
  EXPECT_EQ(KindOf("step 3\n{'num_ooms': 0, 'num_alloc_retries': 1, 'segment.all.current': 2}\n"),
            InputKind::kMemorySummary);
  EXPECT_EQ(KindOf(R"({"num_ooms": 0, "traceEvents": [], "segment.all.peak": 3})"),
            InputKind::kKinetoJson);
}

TEST(InputKindTest, LogsNameTheirFormat) {
  InputClass dmon = ClassifyHead(
      "# gpu   pwr gtemp    sm   mem\n# Idx     W     C     %     %\n    0    70    40    20    "
      "10\n",
      false, true);
  EXPECT_EQ(dmon.kind, InputKind::kMetricLog);
  EXPECT_EQ(dmon.metric_format, MetricLogFormat::kDmon);
  EXPECT_EQ(DescribeInput(dmon), "a metric log (nvidia-smi dmon)");
  // A kernel log starts with '[' but is no JSON array.
  InputClass dmesg =
      ClassifyHead("[    5.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234\n", false, true);
  EXPECT_EQ(dmesg.kind, InputKind::kSystemLog);
  EXPECT_EQ(dmesg.system_format, SystemFormat::kKernelLog);
  EXPECT_EQ(DescribeInput(dmesg), "a node log (kernel log)");
  // A --query-gpu CSV is a metric log that gpuwhy doctor can also read as nvidia-smi output.
  InputClass csv = ClassifyHead(
      "timestamp, pci.bus_id, utilization.gpu [%]\n2024/01/01 00:00:00.000, 00000000:3B:00.0, 93 "
      "%\n",
      false, true);
  EXPECT_EQ(csv.kind, InputKind::kMetricLog);
  EXPECT_EQ(csv.metric_format, MetricLogFormat::kQueryGpuCsv);
  EXPECT_EQ(csv.system_format, SystemFormat::kNvidiaSmiCsv);
  // Nsight Compute's two pages, with the profiler's notes before the header.
  InputClass ncu = ClassifyHead(
      "==PROF== Connected to process 7\n\"ID\",\"Process ID\",\"Kernel Name\",\"Section "
      "Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n",
      false, true);
  EXPECT_EQ(ncu.kind, InputKind::kNcuCsv);
  EXPECT_EQ(DescribeInput(ncu), "an Nsight Compute CSV export");
  EXPECT_EQ(KindOf("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"usecond\"\n"),
            InputKind::kNcuCsv);
  EXPECT_EQ(KindOf("\"ID\",\"Kernel Name\",\"Duration\"\n"), InputKind::kUnknown);
}

TEST(InputKindTest, FilesAndFolders) {
  EXPECT_EQ(ClassifyInput("/no/such/file.json").kind, InputKind::kMissing);
  EXPECT_EQ(ClassifyInput("/no/such/file.json").error,
            "/no/such/file.json: no such file or directory");
  EXPECT_EQ(ClassifyInput(fs::temp_directory_path().string()).kind, InputKind::kDirectory);
  std::string rep = (fs::temp_directory_path() / "gpuwhy_input_kind_test.nsys-rep").string();
  { std::ofstream(rep) << "binary"; }
  EXPECT_EQ(ClassifyInput(rep).kind, InputKind::kNsysReport);
  fs::remove(rep);
}

// A CUDA out-of-memory message is memory text, in the head or at the end of a long training log
// (past the head that classification reads first); the same log without it is no known format.
TEST(InputKindTest, AnOomMessageMakesATrainingLogMemoryText) {
  const std::string oom =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
      "capacity of 79.15 GiB of which 1.23 GiB is free.\n";
  EXPECT_EQ(KindOf("step 1 loss 2.0\n" + oom), InputKind::kMemorySummary);
  std::string log;
  for (int i = 0; log.size() < (200 << 10); ++i) log += "step " + std::to_string(i) + " loss 2\n";
  const std::string path = (fs::temp_directory_path() / "gpuwhy_input_kind_oom.log").string();
  { std::ofstream(path) << log; }
  EXPECT_EQ(ClassifyInput(path).kind, InputKind::kUnknown);
  { std::ofstream(path, std::ios::app) << oom; }
  EXPECT_EQ(ClassifyInput(path).kind, InputKind::kMemorySummary);
  // An NCCL log stays one, and says it holds memory text too, in its head or its tail.
  std::string nccl = "h:1:2 [0] NCCL INFO NCCL version 2.18.3\n";
  EXPECT_EQ(KindOf(nccl + oom), InputKind::kSystemLog);
  EXPECT_TRUE(ClassifyHead(nccl + oom, false, true).memory_text);
  EXPECT_FALSE(ClassifyHead(nccl, false, true).memory_text);
  { std::ofstream(path) << nccl << log << oom; }
  InputClass tail = ClassifyInput(path);
  EXPECT_EQ(tail.kind, InputKind::kSystemLog);
  EXPECT_TRUE(tail.memory_text);
  fs::remove(path);
}

// Every file of a folder whose content is known by the folder it sits in.
TEST(InputKindTest, EveryRealFileIsWhatItsFolderSays) {
  const fs::path data = fs::path(GPUWHY_SHARED_DATA);
  if (!fs::exists(data / "kineto")) GTEST_SKIP() << "no " << data << " (shared data absent)";
  const std::map<std::string, InputKind> by_folder = {
      {"kineto", InputKind::kKinetoJson},
      {"nsys_sqlite", InputKind::kNsysSqlite},
      {"logs/dmon", InputKind::kMetricLog},
      {"logs/dmesg", InputKind::kSystemLog},
      {"logs/lspci", InputKind::kSystemLog},
      {"logs/topo", InputKind::kSystemLog},
      {"logs/nccl", InputKind::kSystemLog},
      {"logs/nvidia-smi-q", InputKind::kSystemLog},
      {"logs/nvidia-smi-q-xml", InputKind::kSystemLog},
      {"logs/infiniband", InputKind::kSystemLog},
      {"memory/snapshots", InputKind::kPythonPickle},
      {"ncu", InputKind::kNcuCsv},
  };
  size_t checked = 0;
  for (const auto& [folder, kind] : by_folder) {
    for (const auto& entry : fs::recursive_directory_iterator(data / folder)) {
      if (!entry.is_regular_file()) continue;
      InputClass input = ClassifyInput(entry.path().string());
      EXPECT_EQ(input.kind, kind) << entry.path() << " classified as " << DescribeInput(input);
      ++checked;
    }
  }
  EXPECT_GE(checked, 150u);
  for (const char* summary :
       {"logs/memory_summary/falkon_issue37_memory_summary_after_empty_cache_excerpt.txt",
        "logs/memory_summary/index30916283401_training_run_memory_summary.txt"}) {
    EXPECT_EQ(ClassifyInput((data / summary).string()).kind, InputKind::kMemorySummary) << summary;
  }
}

}  // namespace input_kind_test
}  // namespace gpuwhy
