#include "report/info_render.h"

#include <sstream>

#include <gtest/gtest.h>
#include <simdjson.h>

namespace gpuwhy {
namespace info_render_test {

InfoSummary MakeSummary() {
  InfoSummary s;
  s.metadata.path = "/data/rank_3.pt.trace.json.gz";
  s.metadata.format = "kineto";
  s.metadata.schema = SchemaGeneration::kModern;
  s.metadata.schema_version = 1;
  s.metadata.file_size_bytes = 3 << 20;
  s.metadata.content_bytes = 40 << 20;
  s.metadata.compressed = true;
  s.metadata.raw_event_counts = {{"X/kernel", 12}};
  s.rank = 3;
  s.world_size = 8;
  s.rank_source = RankSource::kFileName;
  DeviceSummary device;
  device.id = 0;
  device.name = "NVIDIA A100 \"SXM4\" " + std::string(120, 'x');  // quoted and too long
  device.sm_count = 108;
  device.memory_bytes = int64_t{40} << 30;
  device.compute_major = 8;
  device.compute_minor = 0;
  device.active = true;
  s.devices.push_back(device);
  s.span_ns = MsToNs(1234);
  s.step_count = 20;
  s.first_step = 5;
  s.last_step = 24;
  s.mean_step_ns = MsToNs(61);
  s.counts = {{"kernels", "kernels", 1234567}, {"memcpy", "memcpy", 3}};
  s.memcpy = {{CopyDirection::kHostToDevice, MemoryKind::kPageable, MemoryKind::kDevice, 3, 2048}};
  s.problems.Add(DataProblem::kTruncated, "at byte 77 \xFF");
  return s;
}

TEST(InfoRenderTest, TextHasTheFactsAndFitsTheWidth) {
  std::string text = RenderInfoText({MakeSummary()}, ColourMode::kOff);
  EXPECT_NE(text.find("/data/rank_3.pt.trace.json.gz"), std::string::npos);
  EXPECT_NE(text.find("3 of 8 (from file name)"), std::string::npos);
  EXPECT_NE(text.find("108 SMs"), std::string::npos);
  EXPECT_NE(text.find("1,234,567"), std::string::npos);
  EXPECT_NE(text.find("HtoD pageable -> device"), std::string::npos);
  EXPECT_NE(text.find("20 ProfilerStep (#5 to #24), host range mean 61.000 ms"), std::string::npos);
  EXPECT_NE(text.find("truncated"), std::string::npos);
  EXPECT_NE(text.find("3.00 MiB gzip, 40.0 MiB decompressed"), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);  // no colour when off
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(DisplayWidth(line), kReportWidth) << line;
  }
}

TEST(InfoRenderTest, ColourOnlyWhenAsked) {
  std::string text = RenderInfoText({MakeSummary()}, ColourMode::kOn);
  EXPECT_NE(text.find('\x1b'), std::string::npos);
}

TEST(InfoRenderTest, JsonParsesAndCarriesTheCounts) {
  std::string json = RenderInfoJson({MakeSummary()}, {{"bad.json", "bad.json: byte 0: nope"}});
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc = parser.iterate(padded);
  simdjson::ondemand::object file = doc["files"].at(0).get_object();
  EXPECT_EQ(int64_t(file["counts"]["kernels"].get_int64()), 1234567);
  EXPECT_EQ(int64_t(file["rank"].get_int64()), 3);
  EXPECT_EQ(std::string_view(file["rank_source"].get_string()), "file name");
  EXPECT_EQ(int64_t(file["steps"]["first"].get_int64()), 5);
  EXPECT_EQ(std::string_view(file["import_stats"].at(0)["id"].get_string()), "truncated");
  simdjson::ondemand::document again = parser.iterate(padded);
  EXPECT_EQ(std::string_view(again["errors"].at(0)["path"].get_string()), "bad.json");
}

TEST(InfoRenderTest, UnknownRankIsNullInJson) {
  InfoSummary s = MakeSummary();
  s.rank = kNoValue;
  std::string json = RenderInfoJson({s}, {});
  EXPECT_NE(json.find("\"rank\": null"), std::string::npos);
}

TEST(FormatTest, BytesAndDigits) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(uint64_t{123} << 20), "123.0 MiB");
  EXPECT_EQ(GroupDigits(0), "0");
  EXPECT_EQ(GroupDigits(999), "999");
  EXPECT_EQ(GroupDigits(1000), "1,000");
  EXPECT_EQ(GroupDigits(-1234567), "-1,234,567");
  EXPECT_EQ(GroupDigits(INT64_MIN), "-9,223,372,036,854,775,808");
}

}  // namespace info_render_test
}  // namespace gpuwhy
