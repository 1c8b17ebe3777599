// The bearer token of `gpuwhy serve`: read from its file once at start, checked on every
// guarded request without leaking the token through timing.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace gpuwhy {

// What deploy/kubernetes/service.yaml ships in the token Secret; a token file holding it was
// never filled in, so serving with it would guard nothing (everyone can read the manifest).
inline constexpr std::string_view kDeployTokenPlaceholder = "REPLACE-ME";

// The token in |path| without surrounding white space; refused when empty or the placeholder.
StatusOr<std::string> ReadAuthTokenFile(const std::string& path);

// True when |header| is "Bearer TOKEN" with exactly |token| (the scheme in any case, RFC 7235).
// The time taken depends on the header's length only, never on the token's length or on
// where the first difference is.
bool BearerMatches(std::string_view header, std::string_view token);

}  // namespace gpuwhy
