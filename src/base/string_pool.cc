#include "base/string_pool.h"

#include <cstring>

namespace gpuwhy {

StringPool::StringPool() { Intern(""); }  // id 0 is always the empty string

char* StringPool::Allocate(size_t size) {
  if (size > kBlockSize / 4) {
    // Large strings get their own block so they do not waste the shared one.
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    bytes_used_ += size;
    return blocks_.back().get();
  }
  if (block_used_ + size > kBlockSize) {
    blocks_.push_back(
        std::make_unique_for_overwrite<char[]>(kBlockSize));  // not zeroed: 1 MiB per pool
    block_used_ = 0;
    current_ = blocks_.back().get();
  }
  char* out = current_ + block_used_;
  block_used_ += size;
  bytes_used_ += size;
  return out;
}

StringId StringPool::Intern(std::string_view text) {
  auto it = index_.find(text);
  if (it != index_.end()) return StringId(it->second);
  char* copy = Allocate(text.size() + 1);
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  std::string_view stored(copy, text.size());
  auto id = static_cast<uint32_t>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return StringId(id);
}

StringId StringPool::Find(std::string_view text) const {
  auto it = index_.find(text);
  return it == index_.end() ? StringId() : StringId(it->second);
}

std::string_view StringPool::Get(StringId id) const {
  if (!id.valid() || id.value >= views_.size()) return {};
  return views_[id.value];
}

}  // namespace gpuwhy
