// Names, file names and quoted lines reach every output as text, never as markup (issue 21,
// injection): control characters on the terminal, Markdown in Markdown, formulas and commas in
// CSV, invalid UTF-8 in annotate's trace.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/file_input.h"
#include "base/text_escape.h"
#include "cli/cli_test_util.h"
#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {
namespace output_escape_test {

namespace fs = std::filesystem;

// A clipboard write (OSC 52), a screen clear, an OSC 8 link and an unterminated CSI, as
// JSON escapes inside a trace.
constexpr std::string_view kEvilJson =
    R"(\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u001b]8;;http://evil\u001b\\click\u001b]8;;\u001b\\\u001b[)";
// A line break and a code fence that would close a block and inject a heading, an image and
// a link.
constexpr std::string_view kFenceJson =
    R"(\n```\n# Injected\n![x](http://evil/x.png) [y](http://evil) <b>bold</b>\n```\n)";
constexpr std::string_view kDataLoader =
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
constexpr std::string_view kGemm =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas";

class OutputEscapeTest : public CliFolderTest {
 protected:
  OutputEscapeTest() : CliFolderTest("gpuwhy_escape", 4) {}
  // The input-bound scenario with a DataLoader step and the top kernel renamed to carry
  // |payload| (JSON text).
  std::string CraftedTrace(std::string_view payload, const std::string& name = "crafted.json") {
    std::string json = ReadWholeFile(Synth("input-bound")).value();
    Replace(json, kDataLoader, std::string(kDataLoader) + std::string(payload));
    // An fp32 CUDA-core GEMM name, so compute.no_tensor_cores names it in its events (a bare
    // "gemm…" is a GEMM of unknown math, which that rule rightly does not count).
    Replace(json, kGemm, "ampere_sgemm_" + std::string(payload));
    return Write(name, json);
  }
  static void Replace(std::string& s, std::string_view from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
    }
  }
};

// No byte that a terminal obeys: only line breaks, tabs and (with colour) our own styles.
void ExpectTerminalSafe(std::string_view out, bool colour) {
  std::string_view ours[] = {"\x1b[0m",  "\x1b[1m",  "\x1b[2m",  "\x1b[31m",
                             "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[1;31m"};
  std::span<const std::string_view> keep;
  if (colour) keep = ours;
  EXPECT_EQ(text::EscapeControl(out, text::LineBreaks::kKeep, keep), out);
}

TEST_F(OutputEscapeTest, TerminalOutputShowsControlCharactersFromNamesEscaped) {
  std::string trace = CraftedTrace(kEvilJson);
  Result text = RunGpuwhy({"analyze", trace});
  ASSERT_EQ(text.code, kExitOk) << text.err;
  ExpectTerminalSafe(text.out, false);
  EXPECT_NE(text.out.find("\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J"), std::string::npos) << text.out;

  // On a terminal our colours stay and the names' sequences are still escaped.
  std::ostringstream out, err;
  ASSERT_EQ(RunCli({"analyze", trace}, CliContext{out, err, ColourMode::kOn}), kExitOk);
  ExpectTerminalSafe(out.str(), true);
  EXPECT_NE(out.str().find("\x1b[1m"), std::string::npos);
  EXPECT_NE(out.str().find("\\x1b[2J"), std::string::npos);

  Result md = RunGpuwhy({"analyze", trace, "--format", "md"});
  ExpectTerminalSafe(md.out, false);
  Result info = RunGpuwhy({"info", trace});
  ExpectTerminalSafe(info.out, false);
  Result diff = RunGpuwhy({"diff", Synth("input-bound"), trace});
  ExpectTerminalSafe(diff.out, false);
  EXPECT_NE(diff.out.find("\\x1b"), std::string::npos) << diff.out;
}

TEST_F(OutputEscapeTest, FileNamesAndQuotedLogLinesAreEscaped) {
  // An error that names the file.
  Result missing = RunGpuwhy({"analyze", Path("\x1b]52;c;AAAA\x07.json")});
  EXPECT_EQ(missing.code, kExitUnusable);
  ExpectTerminalSafe(missing.err, false);
  EXPECT_NE(missing.err.find("\\x1b]52;c;AAAA\\x07.json"), std::string::npos) << missing.err;
  // A quoted kernel-log line in doctor's evidence.
  fs::create_directories(Path("bundle"));
  std::ofstream(Path("bundle/dmesg.txt"))
      << "[ 3098.271234] NVRM: Xid (PCI:0000:01:00): 79, \x1b]52;c;AAAA\x07\x1b[2J pid=9\r\n";
  Result doctor = RunGpuwhy({"doctor", "--from", Path("bundle")});
  ExpectTerminalSafe(doctor.out, false);
  EXPECT_NE(doctor.out.find("79, \\x1b]52;c;AAAA\\x07"), std::string::npos) << doctor.out;
  Result md = RunGpuwhy({"doctor", "--from", Path("bundle"), "--format", "md"});
  ExpectTerminalSafe(md.out, false);
  EXPECT_NE(md.out.find("79, \\x1b]52;c;AAAA\\x07\\x1b[2J pid=9"), std::string::npos) << md.out;
}

// |line| without its code spans (a run of backticks to the next run of the same length).
std::string WithoutCodeSpans(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size();) {
    if (line[i] != '`') {
      out += line[i++];
      continue;
    }
    size_t run = line.find_first_not_of('`', i);
    if (run == std::string::npos) break;
    const size_t length = run - i;
    size_t close = line.find(line.substr(i, length), run);
    while (close != std::string::npos) {
      size_t end = std::min(line.find_first_not_of('`', close), line.size());
      if (end - close == length) break;
      close = line.find(line.substr(i, length), end);
    }
    if (close == std::string::npos) {
      out += line.substr(i);
      break;
    }
    i = close + length;
  }
  return out;
}

// The lines of |md| outside fenced code blocks (fences of any length, as CommonMark reads
// them), without their code spans: what renders as Markdown.
std::vector<std::string> LinesOutsideCode(const std::string& md) {
  std::vector<std::string> lines;
  std::string fence;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    size_t start = line.find_first_not_of(' ');
    std::string_view body = start == std::string::npos ? "" : std::string_view(line).substr(start);
    size_t ticks = body.find_first_not_of('`');
    if (ticks == std::string_view::npos) ticks = body.size();
    if (start != std::string::npos && start < 4 && ticks >= 3) {
      if (fence.empty()) {
        fence = std::string(ticks, '`');
      } else if (ticks >= fence.size() && body.find_first_not_of('`') == std::string_view::npos) {
        fence.clear();
      }
      continue;
    }
    if (fence.empty()) lines.push_back(WithoutCodeSpans(line));
  }
  return lines;
}

TEST_F(OutputEscapeTest, MarkdownRendersNamesAsText) {
  std::string trace = CraftedTrace(kFenceJson);
  Result md = RunGpuwhy({"analyze", trace, "--format", "md"});
  ASSERT_EQ(md.code, kExitOk) << md.err;
  for (const std::string& line : LinesOutsideCode(md.out)) {
    EXPECT_FALSE(line.starts_with("# Injected")) << line;
    EXPECT_EQ(line.find("![x]("), std::string::npos) << line;
    EXPECT_EQ(line.find("[y]("), std::string::npos) << line;
    EXPECT_EQ(line.find("<b>"), std::string::npos) << line;
    // "__next__" would render as a bold "next".
    EXPECT_EQ(line.find(".__next__"), std::string::npos) << line;
  }
  EXPECT_NE(md.out.find("Iter.\\_\\_next\\_\\_"), std::string::npos);
}

TEST_F(OutputEscapeTest, ExportCsvQuotesTextFieldsAndNeutralisesFormulas) {
  MetricSeriesSet set;
  set.GetOrCreate({"gpu.util_pct", 0, "=HYPERLINK(\"http://evil\",\"x\")"}, "%").Add(0, -1);
  set.GetOrCreate({"gpu.util_pct", 1, "@SUM(A1:A9)"}, "%").Add(0, 2.5);
  set.GetOrCreate({"mem,used", 1, "a \"b\""}, "MiB").Add(0, -3);
  std::string csv = RenderSeriesCsv(set);
  EXPECT_NE(csv.find(",0,\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",gpu.util_pct,%,-1\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",1,\"'@SUM(A1:A9)\",gpu.util_pct,%,2.5\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1,\"a \"\"b\"\"\",\"mem,used\",MiB,-3\n"), std::string::npos) << csv;

  // End to end: a DCGM label with a comma and a quote stays one field.
  std::string log = Write("dcgm.txt",
                          "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",GPU_I_ID=\"1,\\\"x\\\"\"} 42\n"
                          "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",GPU_I_ID=\"1,\\\"x\\\"\"} 43\n");
  Result r = RunGpuwhy({"export-csv", log});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find(",0,\"gi 1,\"\"x\"\"\","), std::string::npos) << r.out;
}

// Issue 38: a line break in a file name started a line of its own ("FAKE LINE") in analyze,
// info and doctor; HTML kept raw ESC and BEL; export-csv wrote raw escapes of process names.
TEST_F(OutputEscapeTest, AHostileFileNameForgesNoLineInAnyFormat) {
  const std::string hostile = Path("a\nFAKE LINE\x1b[31m\x07.json");
  fs::copy_file(Synth("input-bound"), hostile);
  auto forged = [](const std::string& text) {
    return text.starts_with("FAKE") || text.find("\nFAKE") != std::string::npos;
  };
  for (const std::vector<std::string>& args : {std::vector<std::string>{"analyze", "--", hostile},
                                               {"analyze", "--format", "md", "--", hostile},
                                               {"info", "--", hostile},
                                               {"doctor", "--from", hostile}}) {
    Result r = RunGpuwhy(args);
    EXPECT_FALSE(forged(r.out) || forged(r.err)) << args[0] << "\n" << r.out << r.err;
    ExpectTerminalSafe(r.out, false);
    EXPECT_NE((r.out + r.err).find("a\\nFAKE LINE\\x1b[31m\\x07.json"), std::string::npos)
        << args[0] << ": the name is shown, escaped\n"
        << r.out << r.err;
  }
  Result html = RunGpuwhy({"analyze", "--format", "html", "-o", Path("r.html"), "--", hostile});
  ASSERT_EQ(html.code, kExitOk) << html.err;
  const std::string page = ReadWholeFile(Path("r.html")).value();
  EXPECT_EQ(page.find('\x1b'), std::string::npos);
  EXPECT_EQ(page.find('\x07'), std::string::npos);
  // A process name from a recording, as export-csv writes it.
  MetricSeriesSet set;
  set.GetOrCreate({"process.cpu_pct", 0, "\x1b]52;c;AAAA\x07py\nFAKE"}, "%").Add(0, 1);
  const std::string csv = RenderSeriesCsv(set);
  EXPECT_EQ(csv.find('\x1b'), std::string::npos) << csv;
  EXPECT_FALSE(forged(csv)) << csv;
}

TEST_F(OutputEscapeTest, AnnotateReplacesInvalidUtf8AsTheJsonReportDoes) {
  std::string trace = CraftedTrace("\xff\xc0\xaf");
  Result r = RunGpuwhy({"annotate", trace, "-o", Path("annotated.json")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::string out = ReadWholeFile(Path("annotated.json")).value();
  EXPECT_TRUE(text::IsValidUtf8(out));
  EXPECT_NE(out.find("__next__\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"), std::string::npos);
  // Merged ranks take the same path.
  std::string second = CraftedTrace("\xfe", "crafted2.json");
  Result merged = RunGpuwhy({"annotate", trace, second, "-o", Path("merged.json")});
  ASSERT_EQ(merged.code, kExitOk) << merged.err;
  EXPECT_TRUE(text::IsValidUtf8(ReadWholeFile(Path("merged.json")).value()));
}

// Control bytes (ESC, BEL, a line break) that the trace's JSON escapes come out of annotate
// escaped again: the annotated trace is valid JSON and holds no raw control byte.
TEST_F(OutputEscapeTest, AnnotateEscapesControlBytesFromNames) {
  std::string trace = CraftedTrace(std::string(kEvilJson) + R"(\u0001\n)");
  Result r = RunGpuwhy({"annotate", trace, "-o", Path("annotated.json")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::string out = ReadWholeFile(Path("annotated.json")).value();
  for (char c : out) {
    ASSERT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
        << "raw control byte " << static_cast<int>(c);
  }
  EXPECT_NE(out.find("\\u001b"), std::string::npos);
  simdjson::dom::parser parser;
  EXPECT_EQ(parser.parse(out).error(), simdjson::SUCCESS);
}

TEST_F(OutputEscapeTest, CompactMarkdownOfEightRanksFitsAGithubComment) {
  std::string dir = std::string(GPUWHY_SHARED_DATA) + "/kineto/param/dlrm_kineto";
  if (!fs::exists(dir)) GTEST_SKIP() << "real traces absent: " << dir;
  Result compact = RunGpuwhy({"analyze", dir, "--format", "md"});
  ASSERT_EQ(compact.code, kExitOk) << compact.err;
  EXPECT_LT(compact.out.size(), 65536u);
  Result full = RunGpuwhy({"analyze", dir, "--format", "md", "--detail", "full"});
  EXPECT_GT(full.out.size(), 65536u);
  // The job verdict (the cross-rank section) is the same in both, and leads.
  size_t job_end = full.out.find("# gpuwhy report");
  ASSERT_NE(job_end, std::string::npos);
  std::string job = full.out.substr(0, job_end);
  EXPECT_TRUE(job.starts_with("## All ranks (8 ranks)")) << job.substr(0, 200);
  EXPECT_TRUE(compact.out.starts_with(job));
  EXPECT_NE(compact.out.find("## Ranks (8)"), std::string::npos);
  EXPECT_NE(compact.out.find("## Top findings"), std::string::npos);
  EXPECT_EQ(RunGpuwhy({"analyze", dir, "--format", "md", "--detail", "most"}).code, kExitUnusable);
}

}  // namespace output_escape_test
}  // namespace gpuwhy
