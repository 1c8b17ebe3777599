// A model column that stores as little as its values need: nothing while every row holds the
// same value (external ids of an Nsight export, shapes without record_shapes, the one device
// of a process), 32-bit numbers while they fit (stream and correlation ids), and the full type
// after the first value that does not. Rows read back by value through operator[], so readers
// index it as they index a std::vector; appends stay amortised O(1) (a change of storage
// copies the rows so far once).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "base/huge_pages.h"

namespace gpuwhy {

template <typename T, typename Narrow = T>
class CompactColumn {
 public:
  enum class Storage : uint8_t { kUniform, kNarrow, kWide };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Storage storage() const { return storage_; }

  T operator[](size_t i) const {
    switch (storage_) {
      case Storage::kUniform: return value_;
      case Storage::kNarrow: return static_cast<T>(narrow_[i]);
      case Storage::kWide: break;
    }
    return wide_[i];
  }

  void push_back(const T& v) {
    switch (storage_) {
      case Storage::kUniform:
        if (size_ == 0 || v == value_) {
          value_ = v;
          ++size_;
          return;
        }
        Materialize(Fits(v) && Fits(value_) ? Storage::kNarrow : Storage::kWide);
        break;
      case Storage::kNarrow:
        if (!Fits(v)) Widen();
        break;
      case Storage::kWide: break;
    }
    if (storage_ == Storage::kNarrow) {
      narrow_.push_back(static_cast<Narrow>(v));
    } else {
      wide_.push_back(v);
    }
    ++size_;
  }

  // Capacity hint, applied to whichever storage the rows end up needing.
  void reserve(size_t rows) {
    reserved_ = rows;
    if (storage_ == Storage::kNarrow) ReserveWithHugePages(narrow_, rows);
    if (storage_ == Storage::kWide) ReserveWithHugePages(wide_, rows);
  }

  // Replaces every value v by f(v) (string ids moved into another pool).
  template <typename F>
  void Transform(F f) {
    static_assert(std::is_same_v<T, Narrow>, "a narrowed value may not fit after f");
    value_ = f(value_);
    for (T& v : wide_) v = f(v);
  }

  // Calls f(std::vector<...>&) with the rows' storage, or not at all while they are uniform:
  // reordering rows (Trace::Finalize) then has nothing to move.
  template <typename F>
  void VisitStorage(F f) {
    if (storage_ == Storage::kNarrow) f(narrow_);
    if (storage_ == Storage::kWide) f(wide_);
  }

  // Bytes the rows take (benchmarks and tests); reserved capacity not counted.
  size_t bytes() const { return narrow_.size() * sizeof(Narrow) + wide_.size() * sizeof(T); }

 private:
  static constexpr bool kCanNarrow = !std::is_same_v<T, Narrow>;

  static bool Fits(const T& v) {
    if constexpr (kCanNarrow) {
      return static_cast<T>(static_cast<Narrow>(v)) == v;
    } else {
      return false;
    }
  }

  size_t Capacity() const { return reserved_ > size_ ? reserved_ : size_ + 1; }

  void Materialize(Storage to) {
    if (to == Storage::kNarrow) {
      ReserveWithHugePages(narrow_, Capacity());
      narrow_.assign(size_, static_cast<Narrow>(value_));
    } else {
      ReserveWithHugePages(wide_, Capacity());
      wide_.assign(size_, value_);
    }
    storage_ = to;
  }

  void Widen() {
    ReserveWithHugePages(wide_, Capacity());
    wide_.assign(narrow_.begin(), narrow_.end());
    narrow_ = {};  // frees it: a widened column holds one copy of its rows
    storage_ = Storage::kWide;
  }

  Storage storage_ = Storage::kUniform;
  size_t size_ = 0;
  size_t reserved_ = 0;
  T value_{};
  std::vector<Narrow> narrow_;
  std::vector<T> wide_;
};

// Integer ids and counts (int64 in the model) that are 32-bit in practice.
using IntColumn = CompactColumn<int64_t, int32_t>;

}  // namespace gpuwhy
