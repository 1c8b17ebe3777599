// Errors are values: every fallible function returns Status or StatusOr<T>.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace gpuwhy {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller's input is unusable (bad file, bad flag)
  kNotFound,
  kDataLoss,  // input partly read (truncated)
  kUnimplemented,
  kInternal,
  kIoError,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with where it happened: "trace.json: byte 12: ...".
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename... Args>
Status InvalidArgument(fmt::format_string<Args...> format, Args&&... args) {
  return Status(StatusCode::kInvalidArgument, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Status NotFound(fmt::format_string<Args...> format, Args&&... args) {
  return Status(StatusCode::kNotFound, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Status IoError(fmt::format_string<Args...> format, Args&&... args) {
  return Status(StatusCode::kIoError, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
Status Internal(fmt::format_string<Args...> format, Args&&... args) {
  return Status(StatusCode::kInternal, fmt::format(format, std::forward<Args>(args)...));
}

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace gpuwhy

#define GPUWHY_CONCAT_INNER(a, b) a##b
#define GPUWHY_CONCAT(a, b) GPUWHY_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                      \
  do {                                             \
    ::gpuwhy::Status status_macro_ = (expr);       \
    if (!status_macro_.ok()) return status_macro_; \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(GPUWHY_CONCAT(statusor_, __LINE__), lhs, expr)

// For programmer errors only; never for bad input.
#define GPUWHY_CHECK(cond)                                                          \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      ::fmt::print(stderr, "{}:{}: check failed: {}\n", __FILE__, __LINE__, #cond); \
      ::abort();                                                                    \
    }                                                                               \
  } while (0)
