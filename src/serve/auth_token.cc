#include "serve/auth_token.h"

#include <strings.h>

#include "base/file_input.h"

namespace gpuwhy {
namespace {

constexpr std::string_view kScheme = "bearer";
constexpr std::string_view kSpace = " \t\r\n";

std::string_view Trimmed(std::string_view text) {
  size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

}  // namespace

StatusOr<std::string> ReadAuthTokenFile(const std::string& path) {
  StatusOr<std::string> content = ReadWholeFile(path, InputLimit::kTokenFile);
  if (!content.ok()) return content.status();
  std::string_view token = Trimmed(*content);
  if (token.empty()) return InvalidArgument("{}: the token file is empty", path);
  if (token == kDeployTokenPlaceholder) {
    return InvalidArgument(
        "{}: the token is the placeholder '{}' shipped in deploy/kubernetes/service.yaml; put a "
        "real one in the Secret (openssl rand -hex 32)",
        path, kDeployTokenPlaceholder);
  }
  return std::string(token);
}

bool BearerMatches(std::string_view header, std::string_view token) {
  if (token.empty() || header.size() <= kScheme.size() ||
      ::strncasecmp(header.data(), kScheme.data(), kScheme.size()) != 0 ||
      (header[kScheme.size()] != ' ' && header[kScheme.size()] != '\t')) {
    return false;  // these depend on the header only
  }
  std::string_view presented = Trimmed(header.substr(kScheme.size()));
  // Every presented byte is compared, against the token repeated, so the loop runs as long as
  // the presented credential whatever the token: no early exit on a length mismatch (which
  // would tell the token's length) nor on the first differing byte.
  unsigned char diff = presented.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < presented.size(); ++i) {
    diff |= static_cast<unsigned char>(presented[i] ^ token[i % token.size()]);
  }
  return diff == 0 && !presented.empty();
}

}  // namespace gpuwhy
