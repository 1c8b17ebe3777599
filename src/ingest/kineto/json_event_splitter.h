// Tokenizer for Chrome-trace JSON: cuts the byte stream into the elements of the
// "traceEvents" array (or of a top-level array, as 2021-era traces are) and the other
// top-level members, without parsing them. Works in bounded memory on any file size
// (simdjson's 4 GiB document limit never applies: each element is parsed on its own; one
// element over the trace_event input limit is refused before more of it is buffered) and knows
// exactly where a truncated file stops.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_input.h"
#include "base/input_limits.h"
#include "base/status.h"
#include "ingest/kineto/bracket_scanner.h"

namespace gpuwhy {

class JsonEventSplitter {
 public:
  // Receives complete pieces. Views are valid during the call only and are followed by at
  // least kPadding readable bytes (what simdjson needs to parse them in place).
  class Sink {
   public:
    virtual ~Sink() = default;
    virtual void OnEvent(std::string_view element_json, uint64_t offset) = 0;
    virtual void OnTopLevelMember(std::string_view key, std::string_view value_json,
                                  uint64_t offset) = 0;

    enum class Consumed { kEvent, kNeedMore, kDeclined };
    // Optional fast path: read the object element starting at |data| directly, finding
    // its end while reading. kDeclined sends it through the general path (OnEvent).
    virtual Consumed TryConsumeEvent(const char* data, size_t available, size_t* consumed) {
      (void)data;
      (void)available;
      (void)consumed;
      return Consumed::kDeclined;
    }
  };

  struct Result {
    bool saw_events_array = false;
    uint64_t events = 0;
    bool truncated = false;
    uint64_t truncated_at = 0;  // byte offset (decompressed) where the input stops
    uint64_t bytes = 0;         // decompressed bytes read
    // Set when the structure is broken after some events were read (partial results).
    std::string structure_error;
    // Set when reading past the end of a complete document failed: a gzip trailer whose CRC-32
    // or length does not match (the message names the check and the compressed byte).
    std::string check_error;
  };

  static constexpr size_t kPadding = 64;

  JsonEventSplitter(ByteSource& source, size_t chunk_bytes);
  // Fails only when the input is unusable from its start (empty, binary, not JSON, or
  // a JSON object without "traceEvents"). Read errors after the start become truncation.
  StatusOr<Result> Run(Sink& sink);

 private:
  enum class Mode { kStart, kObjectKey, kObjectColon, kObjectValue, kObjectComma, kArray, kDone };

  bool Fill();  // appends more bytes; false at end of input
  Status CheckPieceSize() const;
  void ReadPastTheEnd();
  void Compact();
  Status Error(uint64_t offset, std::string_view what) const;
  // Scans one complete JSON value starting at pos_; returns its end or npos if incomplete.
  size_t ScanValue(size_t begin);
  void SkipWhitespace();
  StatusOr<bool> Step(Sink& sink);  // false when more input is needed

  ByteSource& source_;
  size_t chunk_bytes_;
  std::unique_ptr<char[]> buffer_;  // not zero-filled: only [0, end_ + kPadding) is ever read
  size_t capacity_ = 0;
  size_t begin_ = 0;          // first unconsumed byte
  size_t end_ = 0;            // end of valid bytes
  uint64_t base_offset_ = 0;  // stream offset of buffer_[0]
  bool eof_ = false;
  Status read_error_;
  Mode mode_ = Mode::kStart;
  bool top_level_is_array_ = false;
  bool in_events_array_ = false;
  std::string pending_key_;
  uint64_t key_offset_ = 0;
  Result result_;
  uint64_t max_piece_bytes_ = 0;  // InputLimit::kTraceEvent; 0: none
  BracketScanner brackets_;
};

}  // namespace gpuwhy
