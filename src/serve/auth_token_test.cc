// The token file of `gpuwhy serve --auth-token-file`: trimmed, and refused when empty or when
// it still holds the placeholder that deploy/kubernetes/service.yaml ships.
#include "serve/auth_token.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace gpuwhy {
namespace auth_token_test {

namespace fs = std::filesystem;

class AuthTokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "gpuwhy_token_XXXXXX").string();
    dir_ = ::mkdtemp(dir.data());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& content) {
    std::string path = (fs::path(dir_) / "token").string();
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    return path;
  }
  std::string dir_;
};

TEST_F(AuthTokenFileTest, TheTokenIsReadWithoutSurroundingSpace) {
  auto token = ReadAuthTokenFile(Write("  s3cret-token\r\n"));
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(*token, "s3cret-token");
}

TEST_F(AuthTokenFileTest, TheDeployPlaceholderIsRefusedNamingTheFile) {
  for (const char* content : {"REPLACE-ME", "REPLACE-ME\n", " REPLACE-ME \r\n"}) {
    std::string path = Write(content);
    auto token = ReadAuthTokenFile(path);
    ASSERT_FALSE(token.ok()) << "the shipped placeholder was accepted as a token";
    const std::string& message = token.status().message();
    EXPECT_TRUE(message.starts_with(path + ": ")) << message;
    EXPECT_NE(message.find("REPLACE-ME"), std::string::npos) << message;
    EXPECT_NE(message.find("placeholder"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST_F(AuthTokenFileTest, AnEmptyOrMissingFileIsRefused) {
  auto empty = ReadAuthTokenFile(Write(" \n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty"), std::string::npos);
  EXPECT_FALSE(ReadAuthTokenFile(dir_ + "/missing").ok());
}

}  // namespace auth_token_test
}  // namespace gpuwhy
