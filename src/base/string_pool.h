// Interns strings once; tables store 4-byte StringIds. Views stay valid for the pool's life.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/strong_id.h"

namespace gpuwhy {

struct StringTag {};
using StringId = StrongId<StringTag>;

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StringId Intern(std::string_view text);
  // Returns the id of |text| if it was interned, else an invalid id.
  StringId Find(std::string_view text) const;
  std::string_view Get(StringId id) const;
  size_t size() const { return views_.size(); }
  size_t bytes_used() const { return bytes_used_; }

 private:
  static constexpr size_t kBlockSize = 1 << 20;
  char* Allocate(size_t size);

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* current_ = nullptr;
  size_t block_used_ = kBlockSize;
  size_t bytes_used_ = 0;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, uint32_t> index_;
};

}  // namespace gpuwhy
