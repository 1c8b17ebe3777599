#include "ingest/memory/pickle_decoder.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "ingest/memory/pickle_text.h"

namespace gpuwhy::pickle {
namespace {

// The opcodes protocol 1 added (EMPTY_DICT/LIST/TUPLE, BINPUT/BINGET and their long forms,
// BININT*, BINFLOAT, SHORT_BINSTRING, BINSTRING, BINUNICODE, SETITEMS, APPENDS, POP_MARK).
constexpr std::string_view kProtocolOneOpcodes = "})]qrhjKMJGUTXue1";

}  // namespace

// The decoder's state over one input; friend of PickleDocument, whose tables it fills.
class PickleDecoder {
 public:
  explicit PickleDecoder(std::string_view data) : data_(data) {
    doc_.input_ = data;
    // Each value and item costs at least one opcode byte; reserving a share of the input size
    // touches no pages (RSS grows with use) and spares most reallocation copies.
    doc_.values_.reserve(data.size() / 16 + 16);
    doc_.items_.reserve(data.size() / 4 + 16);
  }

  StatusOr<PickleDocument> Run();

 private:
  // Each handler returns an error, or Ok with truncated_ set when the input ended inside it.
  Status Step(uint8_t op, size_t at);
  Status Refuse(uint8_t op, size_t at) const;

  bool Have(size_t n) const { return data_.size() - pos_ >= n; }
  bool Cut(size_t at) {
    truncated_ = true;
    cut_at_ = at;
    return false;
  }
  // Reads a little-endian unsigned of |n| bytes; false (truncated) when the input is short.
  bool ReadLe(size_t n, size_t at, uint64_t& out);
  // Reads a protocol-0 argument up to '\n' (without it).
  bool ReadLine(size_t at, std::string_view& out);

  size_t FrameBase() const { return marks_.empty() ? 0 : marks_.back(); }
  Status Push(ValueId id);
  Status Pop(size_t at, ValueId& out);
  Status Top(size_t at, ValueId& out) const;
  Status PopMark(size_t at, size_t& begin);

  ValueId NewValue(ValueType type, int64_t b = 0, uint32_t a = 0);
  ValueId NewString(ValueType type, size_t offset, size_t size);
  ValueId NewDecodedString(std::string_view text);
  ValueId NewContainer(ValueType type);
  void AppendItems(ValueId container, const ValueId* ids, size_t n);
  ValueId FromStack(ValueType type, size_t begin);
  Status ExtendFromMark(size_t at, ValueType want, bool pairs);

  Status Memo(size_t at, uint64_t key);
  Status Get(size_t at, uint64_t key);
  Status Long(size_t at, size_t length_bytes);
  Status Bytes(size_t at, size_t length_bytes, ValueType type);
  Status TextInt(size_t at, bool is_long);
  void CloseOpenContainers();

  std::string_view data_;
  size_t pos_ = 0;
  PickleDocument doc_;
  std::vector<ValueId> stack_;
  std::vector<size_t> marks_;
  std::vector<ValueId> memo_;  // dense keys 0..n-1, as MEMOIZE and sequential PUTs write them
  std::unordered_map<uint64_t, ValueId> sparse_memo_;
  bool stopped_ = false;
  bool truncated_ = false;
  size_t cut_at_ = 0;
};

Status PickleDecoder::Refuse(uint8_t op, size_t at) const {
  std::string name(OpcodeName(op));
  std::string what;
  if (op == 'c' || op == 'i') {
    // GLOBAL and INST name "module\nname\n": show it, printable bytes only.
    std::string_view args = data_.substr(at + 1, 96);
    const size_t first = args.find('\n');
    const size_t second = first == std::string_view::npos ? first : args.find('\n', first + 1);
    what = " " + PrintableArgument(args.substr(0, second));
  }
  return InvalidArgument(
      "byte {}: opcode {} (0x{:02x}){} names or calls code; refused (gpuwhy decodes data-only "
      "pickles and never imports or runs anything)",
      at, name, op, what);
}

bool PickleDecoder::ReadLe(size_t n, size_t at, uint64_t& out) {
  if (!Have(n)) return Cut(at);
  out = 0;
  std::memcpy(&out, data_.data() + pos_, n);  // little-endian host (x86-64, aarch64)
  pos_ += n;
  return true;
}

bool PickleDecoder::ReadLine(size_t at, std::string_view& out) {
  const size_t end = data_.find('\n', pos_);
  if (end == std::string_view::npos) return Cut(at);
  out = data_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return true;
}

Status PickleDecoder::Push(ValueId id) {
  stack_.push_back(id);
  return Status::Ok();
}

Status PickleDecoder::Pop(size_t at, ValueId& out) {
  if (stack_.size() <= FrameBase()) return InvalidArgument("byte {}: pop from an empty stack", at);
  out = stack_.back();
  stack_.pop_back();
  return Status::Ok();
}

Status PickleDecoder::Top(size_t at, ValueId& out) const {
  if (stack_.size() <= FrameBase()) return InvalidArgument("byte {}: empty stack", at);
  out = stack_.back();
  return Status::Ok();
}

Status PickleDecoder::PopMark(size_t at, size_t& begin) {
  if (marks_.empty()) return InvalidArgument("byte {}: no MARK to close", at);
  begin = marks_.back();
  marks_.pop_back();
  return Status::Ok();
}

ValueId PickleDecoder::NewValue(ValueType type, int64_t b, uint32_t a) {
  doc_.values_.push_back({type, false, a, b});
  return static_cast<ValueId>(doc_.values_.size() - 1);
}

ValueId PickleDecoder::NewString(ValueType type, size_t offset, size_t size) {
  return NewValue(type, static_cast<int64_t>(offset), static_cast<uint32_t>(size));
}

ValueId PickleDecoder::NewDecodedString(std::string_view text) {
  const size_t offset = doc_.decoded_.size();
  doc_.decoded_.append(text);
  ValueId id = NewString(ValueType::kString, offset, text.size());
  doc_.values_[id].decoded = true;
  return id;
}

ValueId PickleDecoder::NewContainer(ValueType type) {
  doc_.containers_.push_back({});
  return NewValue(type, 0, static_cast<uint32_t>(doc_.containers_.size() - 1));
}

void PickleDecoder::AppendItems(ValueId container, const ValueId* ids, size_t n) {
  if (n == 0) return;
  PickleDocument::Container& c = doc_.containers_[doc_.values_[container].a];
  const auto begin = static_cast<uint32_t>(doc_.items_.size());
  doc_.items_.insert(doc_.items_.end(), ids, ids + n);
  c.size += static_cast<uint32_t>(n);
  if (c.last_chunk != kNoChunk) {
    PickleDocument::Chunk& last = doc_.chunks_[c.last_chunk];
    if (last.begin + last.count == begin) {  // the container's items are still the last ones
      last.count += static_cast<uint32_t>(n);
      return;
    }
  }
  doc_.chunks_.push_back({begin, static_cast<uint32_t>(n), kNoChunk});
  const auto index = static_cast<uint32_t>(doc_.chunks_.size() - 1);
  if (c.last_chunk == kNoChunk) {
    c.first_chunk = index;
  } else {
    doc_.chunks_[c.last_chunk].next = index;
  }
  c.last_chunk = index;
}

// A new container of the stack items from |begin| up, which leave the stack.
ValueId PickleDecoder::FromStack(ValueType type, size_t begin) {
  ValueId id = NewContainer(type);
  AppendItems(id, stack_.data() + begin, stack_.size() - begin);
  stack_.resize(begin);
  return id;
}

// APPENDS, SETITEMS, ADDITEMS: the items since the last MARK go into the container below it.
Status PickleDecoder::ExtendFromMark(size_t at, ValueType want, bool pairs) {
  size_t begin = 0;
  RETURN_IF_ERROR(PopMark(at, begin));
  if (begin <= FrameBase()) return InvalidArgument("byte {}: no container below the MARK", at);
  const ValueType target = doc_.values_[stack_[begin - 1]].type;
  if (target != want) {
    return InvalidArgument("byte {}: adds items to a value of type {}, not a {}", at,
                           ValueTypeName(target), ValueTypeName(want));
  }
  if (pairs && (stack_.size() - begin) % 2 != 0) {
    return InvalidArgument("byte {}: a dict's items come in key, value pairs", at);
  }
  AppendItems(stack_[begin - 1], stack_.data() + begin, stack_.size() - begin);
  stack_.resize(begin);
  return Status::Ok();
}

Status PickleDecoder::Memo(size_t at, uint64_t key) {
  ValueId top = 0;
  RETURN_IF_ERROR(Top(at, top));
  if (key < memo_.size()) {
    memo_[key] = top;
    return Status::Ok();
  }
  if (key == memo_.size()) {
    memo_.push_back(top);
    sparse_memo_.erase(key);
    return Status::Ok();
  }
  if (sparse_memo_.size() >= kMaxSparseMemo && !sparse_memo_.contains(key)) {
    return InvalidArgument("byte {}: more than {} memo keys out of sequence", at, kMaxSparseMemo);
  }
  sparse_memo_[key] = top;
  return Status::Ok();
}

Status PickleDecoder::Get(size_t at, uint64_t key) {
  if (key < memo_.size()) return Push(memo_[key]);
  auto it = sparse_memo_.find(key);
  if (it == sparse_memo_.end()) {
    return InvalidArgument("byte {}: memo key {} read before it was written", at, key);
  }
  return Push(it->second);
}

// LONG1, LONG4: little-endian two's complement of |length_bytes|' worth of bytes.
Status PickleDecoder::Long(size_t at, size_t length_bytes) {
  uint64_t n = 0;
  if (!ReadLe(length_bytes, at, n)) return Status::Ok();
  if (length_bytes == 4 && n > INT32_MAX) return InvalidArgument("byte {}: LONG4 length < 0", at);
  if (!Have(n)) {
    Cut(at);
    return Status::Ok();
  }
  const std::string_view raw = data_.substr(pos_, n);
  const size_t offset = pos_;
  pos_ += n;
  size_t size = raw.size();
  // Sign bytes that add nothing (a positive 64-bit address pickles as 9 bytes) are dropped.
  while (size > 1) {
    const auto last = static_cast<uint8_t>(raw[size - 1]);
    const bool negative_below = (static_cast<uint8_t>(raw[size - 2]) & 0x80) != 0;
    if ((last == 0 && !negative_below) || (last == 0xff && negative_below)) {
      --size;
      continue;
    }
    break;
  }
  if (size > 8) return Push(NewString(ValueType::kBigInt, offset, raw.size()));
  uint64_t bits = 0;
  for (size_t i = 0; i < size; ++i) bits |= uint64_t{static_cast<uint8_t>(raw[i])} << (8 * i);
  if (size > 0 && size < 8 && (static_cast<uint8_t>(raw[size - 1]) & 0x80) != 0) {
    bits |= ~uint64_t{0} << (8 * size);  // sign extension
  }
  return Push(NewValue(ValueType::kInt, static_cast<int64_t>(bits)));
}

// Length-prefixed strings and bytes.
Status PickleDecoder::Bytes(size_t at, size_t length_bytes, ValueType type) {
  uint64_t n = 0;
  if (!ReadLe(length_bytes, at, n)) return Status::Ok();
  if (length_bytes == 4 && data_[at] == 'T' && n > INT32_MAX) {
    return InvalidArgument("byte {}: BINSTRING length < 0", at);
  }
  if (!Have(n)) {
    Cut(at);
    return Status::Ok();
  }
  const size_t offset = pos_;
  pos_ += n;
  return Push(NewString(type, offset, n));
}

Status PickleDecoder::TextInt(size_t at, bool is_long) {
  std::string_view text;
  if (!ReadLine(at, text)) return Status::Ok();
  if (!is_long && text == "01") return Push(NewValue(ValueType::kBool, 1));
  if (!is_long && text == "00") return Push(NewValue(ValueType::kBool, 0));
  if (is_long && text.ends_with('L')) text.remove_suffix(1);
  if (std::optional<int64_t> value = ParseTextInt(text)) {
    return Push(NewValue(ValueType::kInt, *value));
  }
  // Wider than int64: the same raw bytes LONG1/LONG4 carry, so every protocol reads alike.
  std::optional<std::string> bytes = DecimalToTwosComplement(text);
  if (!bytes) {
    return InvalidArgument("byte {}: {} is not an int of at most {} digits", at,
                           PrintableArgument(text), kMaxIntDigits);
  }
  ValueId id = NewDecodedString(*bytes);
  doc_.values_[id].type = ValueType::kBigInt;
  return Push(id);
}

StatusOr<PickleDocument> PickleDecoder::Run() {
  if (data_.size() >= UINT32_MAX) return InvalidArgument("a pickle over 4 GiB is not read");
  while (!stopped_ && !truncated_) {
    if (pos_ >= data_.size()) {
      Cut(pos_);
      break;
    }
    const size_t at = pos_++;
    // No PROTO opcode (protocols 0 and 1 write none): a binary opcode of protocol 1 says 1.
    if (doc_.protocol_ == 0 && kProtocolOneOpcodes.find(data_[at]) != std::string_view::npos) {
      doc_.protocol_ = 1;
    }
    RETURN_IF_ERROR(Step(static_cast<uint8_t>(data_[at]), at));
  }
  if (truncated_) {
    doc_.truncated_ = true;
    doc_.truncated_at_ = cut_at_;
    doc_.truncation_detail_ = cut_at_ < data_.size()
                                  ? fmt::format("byte {}: input ends inside {}", cut_at_,
                                                OpcodeName(static_cast<uint8_t>(data_[cut_at_])))
                                  : fmt::format("byte {}: input ends before STOP", cut_at_);
    CloseOpenContainers();
    if (!stack_.empty()) {
      doc_.root_ = stack_.front();
      doc_.has_root_ = true;
    }
  }
  return std::move(doc_);
}

// A cut pickle: the items after each open MARK, innermost first, join the container below it
// (a dict takes whole pairs), or become a tuple when there is none, so the outermost value
// holds everything read.
void PickleDecoder::CloseOpenContainers() {
  while (!marks_.empty()) {
    const size_t begin = marks_.back();
    marks_.pop_back();
    const size_t base = FrameBase();
    if (begin > base) {
      const ValueId target = stack_[begin - 1];
      const ValueType type = doc_.values_[target].type;
      if (type == ValueType::kList || type == ValueType::kDict || type == ValueType::kSet) {
        size_t n = stack_.size() - begin;
        if (type == ValueType::kDict) n -= n % 2;
        AppendItems(target, stack_.data() + begin, n);
        stack_.resize(begin);
        continue;
      }
    }
    stack_.push_back(FromStack(ValueType::kTuple, begin));
  }
}

Status PickleDecoder::Step(uint8_t op, size_t at) {
  uint64_t n = 0;
  std::string_view text;
  ValueId a = 0;
  ValueId b = 0;
  size_t begin = 0;
  switch (op) {
    // Framing and the stack.
    case 0x80:  // PROTO
      if (!ReadLe(1, at, n)) return Status::Ok();
      if (n > 5) return InvalidArgument("byte {}: pickle protocol {} is newer than 5", at, n);
      doc_.protocol_ = static_cast<int>(n);
      return Status::Ok();
    case 0x95:  // FRAME: a length hint only; the opcodes inside are read as they come
      ReadLe(8, at, n);
      return Status::Ok();
    case '.':  // STOP
      RETURN_IF_ERROR(Top(at, a));
      doc_.root_ = a;
      doc_.has_root_ = true;
      stopped_ = true;
      return Status::Ok();
    case '(':  // MARK
      if (marks_.size() >= kMaxDepth) {
        return InvalidArgument("byte {}: nesting deeper than {} MARKs", at, kMaxDepth);
      }
      marks_.push_back(stack_.size());
      return Status::Ok();
    case '0':  // POP: the top item, or the MARK when the frame is empty (as CPython)
      if (stack_.size() > FrameBase()) return Pop(at, a);
      return PopMark(at, begin);
    case '1':  // POP_MARK
      RETURN_IF_ERROR(PopMark(at, begin));
      stack_.resize(begin);
      return Status::Ok();
    case '2':  // DUP
      RETURN_IF_ERROR(Top(at, a));
      return Push(a);
    // The memo.
    case 'p':  // PUT
      if (!ReadLine(at, text)) return Status::Ok();
      if (auto key = ParseTextInt(text); key && *key >= 0) return Memo(at, *key);
      return InvalidArgument("byte {}: PUT key {} is not a number", at, PrintableArgument(text));
    case 'q': return ReadLe(1, at, n) ? Memo(at, n) : Status::Ok();  // BINPUT
    case 'r': return ReadLe(4, at, n) ? Memo(at, n) : Status::Ok();  // LONG_BINPUT
    case 0x94: return Memo(at, memo_.size() + sparse_memo_.size());  // MEMOIZE
    case 'g':                                                        // GET
      if (!ReadLine(at, text)) return Status::Ok();
      if (auto key = ParseTextInt(text); key && *key >= 0) return Get(at, *key);
      return InvalidArgument("byte {}: GET key {} is not a number", at, PrintableArgument(text));
    case 'h': return ReadLe(1, at, n) ? Get(at, n) : Status::Ok();  // BINGET
    case 'j':
      return ReadLe(4, at, n) ? Get(at, n) : Status::Ok();  // LONG_BINGET
    // Scalars.
    case 'N': return Push(NewValue(ValueType::kNone));
    case 0x88: return Push(NewValue(ValueType::kBool, 1));  // NEWTRUE
    case 0x89: return Push(NewValue(ValueType::kBool, 0));  // NEWFALSE
    case 'K':                                               // BININT1
      return ReadLe(1, at, n) ? Push(NewValue(ValueType::kInt, static_cast<int64_t>(n)))
                              : Status::Ok();
    case 'M':  // BININT2
      return ReadLe(2, at, n) ? Push(NewValue(ValueType::kInt, static_cast<int64_t>(n)))
                              : Status::Ok();
    case 'J':  // BININT: signed 32-bit
      if (!ReadLe(4, at, n)) return Status::Ok();
      return Push(NewValue(ValueType::kInt, static_cast<int32_t>(static_cast<uint32_t>(n))));
    case 0x8a: return Long(at, 1);  // LONG1
    case 0x8b: return Long(at, 4);  // LONG4
    case 'I': return TextInt(at, false);
    case 'L': return TextInt(at, true);
    case 'G':  // BINFLOAT: big-endian IEEE 754
      if (!ReadLe(8, at, n)) return Status::Ok();
      return Push(NewValue(ValueType::kFloat, static_cast<int64_t>(__builtin_bswap64(n))));
    case 'F': {  // FLOAT: repr text
      if (!ReadLine(at, text)) return Status::Ok();
      std::optional<double> value = ParseTextFloat(text);
      if (!value) return InvalidArgument("byte {}: {} is not a float", at, PrintableArgument(text));
      return Push(NewValue(ValueType::kFloat, std::bit_cast<int64_t>(*value)));
    }
    // Strings and bytes (protocol-0/1 STRING reads as str, as CPython's default ASCII decoding).
    case 'X': return Bytes(at, 4, ValueType::kString);   // BINUNICODE
    case 0x8c: return Bytes(at, 1, ValueType::kString);  // SHORT_BINUNICODE
    case 0x8d: return Bytes(at, 8, ValueType::kString);  // BINUNICODE8
    case 'T': return Bytes(at, 4, ValueType::kString);   // BINSTRING
    case 'U': return Bytes(at, 1, ValueType::kString);   // SHORT_BINSTRING
    case 'B': return Bytes(at, 4, ValueType::kBytes);    // BINBYTES
    case 'C': return Bytes(at, 1, ValueType::kBytes);    // SHORT_BINBYTES
    case 0x8e: return Bytes(at, 8, ValueType::kBytes);   // BINBYTES8
    case 0x96: return Bytes(at, 8, ValueType::kBytes);   // BYTEARRAY8
    case 'S': {                                          // STRING: a quoted repr
      if (!ReadLine(at, text)) return Status::Ok();
      std::optional<std::string> value = DecodeQuotedString(text);
      if (!value)
        return InvalidArgument("byte {}: STRING {} is not quoted", at, PrintableArgument(text));
      return Push(NewDecodedString(*value));
    }
    case 'V':  // UNICODE: raw-unicode-escape
      if (!ReadLine(at, text)) return Status::Ok();
      return Push(NewDecodedString(DecodeRawUnicodeEscape(text)));
    // Containers.
    case ']': return Push(NewContainer(ValueType::kList));   // EMPTY_LIST
    case '}': return Push(NewContainer(ValueType::kDict));   // EMPTY_DICT
    case ')': return Push(NewContainer(ValueType::kTuple));  // EMPTY_TUPLE
    case 0x8f: return Push(NewContainer(ValueType::kSet));   // EMPTY_SET
    case 'l':                                                // LIST
      RETURN_IF_ERROR(PopMark(at, begin));
      return Push(FromStack(ValueType::kList, begin));
    case 't':  // TUPLE
      RETURN_IF_ERROR(PopMark(at, begin));
      return Push(FromStack(ValueType::kTuple, begin));
    case 0x91:  // FROZENSET
      RETURN_IF_ERROR(PopMark(at, begin));
      return Push(FromStack(ValueType::kFrozenSet, begin));
    case 'd':  // DICT
      RETURN_IF_ERROR(PopMark(at, begin));
      if ((stack_.size() - begin) % 2 != 0) {
        return InvalidArgument("byte {}: a dict's items come in key, value pairs", at);
      }
      return Push(FromStack(ValueType::kDict, begin));
    case 0x85:  // TUPLE1
    case 0x86:  // TUPLE2
    case 0x87:  // TUPLE3
      n = op - 0x84u;
      if (stack_.size() < FrameBase() + n)
        return InvalidArgument("byte {}: pop from an empty stack", at);
      return Push(FromStack(ValueType::kTuple, stack_.size() - n));
    case 'a':  // APPEND
      RETURN_IF_ERROR(Pop(at, b));
      RETURN_IF_ERROR(Top(at, a));
      if (doc_.values_[a].type != ValueType::kList) {
        return InvalidArgument("byte {}: APPEND to a value of type {}, not a list", at,
                               ValueTypeName(doc_.values_[a].type));
      }
      AppendItems(a, &b, 1);
      return Status::Ok();
    case 's': {  // SETITEM
      ValueId key = 0;
      RETURN_IF_ERROR(Pop(at, b));
      RETURN_IF_ERROR(Pop(at, key));
      RETURN_IF_ERROR(Top(at, a));
      if (doc_.values_[a].type != ValueType::kDict) {
        return InvalidArgument("byte {}: SETITEM on a value of type {}, not a dict", at,
                               ValueTypeName(doc_.values_[a].type));
      }
      const ValueId pair[2] = {key, b};
      AppendItems(a, pair, 2);
      return Status::Ok();
    }
    case 'e': return ExtendFromMark(at, ValueType::kList, false);  // APPENDS
    case 'u': return ExtendFromMark(at, ValueType::kDict, true);   // SETITEMS
    case 0x90: return ExtendFromMark(at, ValueType::kSet, false);  // ADDITEMS
    default: break;
  }
  if (IsCodeOpcode(op)) return Refuse(op, at);
  return InvalidArgument("byte {}: unknown opcode 0x{:02x}; not a pickle gpuwhy reads", at, op);
}

StatusOr<PickleDocument> DecodePickle(std::string_view data) { return PickleDecoder(data).Run(); }

}  // namespace gpuwhy::pickle
