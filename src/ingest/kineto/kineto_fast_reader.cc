#include "ingest/kineto/kineto_fast_reader.h"

#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/time.h"
#include "ingest/kineto/kineto_arg_keys.h"
#include "base/ascii.h"

namespace gpuwhy {
namespace {

// First '"' or '\\' in [p, end), or end: one pass finds a string's end and tells
// whether it has escapes.
const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int mask = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// Cursor over [p, end). Methods return false when the input ends (kIncomplete) or
// looks unusual (kDeclined); `declined` tells which.
struct Cursor {
  const char* p;
  const char* end;
  bool declined = false;

  bool Decline() {
    declined = true;
    return false;
  }
  bool SkipSpaces() {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    return p < end;
  }
  bool Expect(char c) {
    if (!SkipSpaces()) return false;
    if (*p != c) return Decline();
    ++p;
    return true;
  }
  // A string without escapes; p at the opening quote.
  bool String(std::string_view& out) {
    const char* start = p + 1;
    const char* close = FindQuoteOrBackslash(start, end);
    if (close == end) return false;
    if (*close == '\\') return Decline();
    out = std::string_view(start, close - start);
    p = close + 1;
    return true;
  }
  // A number, literal or other scalar token.
  bool Token(std::string_view& out) {
    const char* start = p;
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' &&
           *p != '\r' && *p != '\t') {
      ++p;
    }
    if (p == end) return false;
    out = std::string_view(start, p - start);
    return !out.empty() || Decline();
  }
  // Skips any value; containers are skipped bracket by bracket, strings honouring escapes.
  bool SkipValue() {
    if (!SkipSpaces()) return false;
    if (*p == '"') return SkipString();
    if (*p != '{' && *p != '[') {
      std::string_view token;
      return Token(token);
    }
    int depth = 0;
    while (p < end) {
      char c = *p;
      if (c == '"') {
        if (!SkipString()) return false;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        ++p;
        return true;
      }
      ++p;
    }
    return false;
  }
  bool SkipString() {
    const char* q = p + 1;
    while (true) {
      const void* hit = std::memchr(q, '"', end - q);
      if (hit == nullptr) return false;
      const char* quote = static_cast<const char*>(hit);
      size_t backslashes = 0;
      while (quote - backslashes > p + 1 && quote[-1 - static_cast<ptrdiff_t>(backslashes)] == '\\')
        ++backslashes;
      if (backslashes % 2 == 0) {
        p = quote + 1;
        return true;
      }
      q = quote + 1;
    }
  }
  // "key": — p at the opening quote of a key; leaves p after the colon.
  bool Key(std::string_view& key) { return String(key) && Expect(':') && SkipSpaces(); }
  // Separator after a member: true with *done set when the object closes.
  bool NextMember(bool& done) {
    if (!SkipSpaces()) return false;
    if (*p == ',') {
      ++p;
      done = false;
      return SkipSpaces();
    }
    if (*p == '}') {
      ++p;
      done = true;
      return true;
    }
    return Decline();
  }
};

bool ReadNumberText(Cursor& c, std::string_view& out) {
  if (*c.p == '"') return c.String(out);
  return c.Token(out);
}


// A time in µs read straight to ns in the one scan that finds its end: the shapes
// profilers write (optional '-', 1 to 16 integer digits, an optional fraction of which
// digits past the third are dropped), exactly as ParseMicrosecondsToNs reads them. Any
// other shape (exponent, string, more digits) is kept as text for the exact parser.
bool ReadMicroseconds(Cursor& c, std::string_view& text, bool& known, int64_t& ns) {
  const char* q = c.p;
  const char* end = c.end;
  bool negative = q < end && *q == '-';
  if (negative) ++q;
  const char* digits = q;
  int64_t whole = 0;
  while (q < end && IsAsciiDigit(*q) && q - digits < 17) whole = whole * 10 + (*q++ - '0');
  ptrdiff_t int_digits = q - digits;
  int64_t fraction = 0;
  int taken = 0;
  bool plain = int_digits > 0 && int_digits <= 16;
  if (plain && q < end && *q == '.') {
    const char* frac = ++q;
    for (; q < end && IsAsciiDigit(*q); ++q) {
      if (taken < 3) {
        fraction = fraction * 10 + (*q - '0');
        ++taken;
      }
    }
    plain = q > frac;
  }
  // The number must end where a token ends; else (or at the end of the input) the text
  // path decides, as before.
  if (plain && q < end &&
      (*q == ',' || *q == '}' || *q == ']' || *q == ' ' || *q == '\n' || *q == '\r' ||
       *q == '\t')) {
    for (; taken < 3; ++taken) fraction *= 10;
    if (whole <= (std::numeric_limits<int64_t>::max() - fraction) / 1000) {
      int64_t value = whole * 1000 + fraction;
      ns = negative ? -value : value;
      known = true;
      text = std::string_view(c.p, q - c.p);
      c.p = q;
      return true;
    }
  }
  return ReadNumberText(c, text);
}

// Plain integers ("123", "-4") are read while scanning; anything else goes through the
// exact decimal parser (which also accepts "3.0" and numeric strings).
bool ReadInt(Cursor& c, int64_t& out) {
  const char* q = c.p;
  bool negative = *q == '-';
  if (negative) ++q;
  const char* digits = q;
  int64_t value = 0;
  while (q < c.end && IsAsciiDigit(*q) && q - digits < 18) value = value * 10 + (*q++ - '0');
  if (q < c.end && q > digits && !IsAsciiDigit(*q) && *q != '.' && *q != 'e' && *q != 'E') {
    out = negative ? -value : value;
    c.p = q;
    return true;
  }
  std::string_view text;
  if (!ReadNumberText(c, text)) return false;
  auto parsed = ParseExactInt(text);
  if (parsed) out = *parsed;
  return true;
}

bool ReadInt32(Cursor& c, int32_t& out) {
  int64_t value = 0;
  if (!ReadInt(c, value)) return false;
  out = static_cast<int32_t>(value);
  return true;
}

bool ReadFloat(Cursor& c, float& out) {
  std::string_view text;
  if (!c.Token(text)) return false;
  double value = 0;
  auto [parsed_end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc() && parsed_end == text.data() + text.size())
    out = static_cast<float>(value);
  return true;
}

bool ReadId(Cursor& c, KinetoId& out) {
  out.present = true;
  if (*c.p == '"') return c.String(out.text);
  if (*c.p != '-' && !IsAsciiDigit(*c.p)) return c.Decline();
  out.is_number = true;
  return ReadInt(c, out.number);
}

bool ReadTriple(Cursor& c, std::array<int32_t, 3>& out) {
  if (*c.p != '[') return c.SkipValue();
  ++c.p;
  for (size_t i = 0;; ++i) {
    if (!c.SkipSpaces()) return false;
    if (*c.p == ']') {
      ++c.p;
      return true;
    }
    int32_t value = -1;
    if (!ReadInt32(c, value)) return false;
    if (i < 3) out[i] = value;
    if (!c.SkipSpaces()) return false;
    if (*c.p == ',') ++c.p;
  }
}

bool ReadRaw(Cursor& c, std::string_view& out) {
  const char* start = c.p;
  if (!c.SkipValue()) return false;
  out = std::string_view(start, c.p - start);
  return true;
}

bool ReadStringValue(Cursor& c, std::string_view& out) {
  if (*c.p != '"') return c.Decline();
  return c.String(out);
}

// One member of "args", read as KinetoEventParser::ParseArgs reads it (both walk one table).
bool ReadArg(Cursor& c, std::string_view key, KinetoEvent& event) {
  if (event.ph == 'C') return c.Decline();  // counters: the general path collects every value
  const KinetoArgKey* arg = FindKinetoArgKey(key);
  if (arg == nullptr) return c.SkipValue();
  KinetoArgs& a = event.args;
  switch (arg->read) {
    case KinetoArgRead::kInt: return ReadInt(c, arg->FieldOf<int64_t>(a));
    case KinetoArgRead::kInt32: return ReadInt32(c, arg->FieldOf<int32_t>(a));
    case KinetoArgRead::kFloat: return ReadFloat(c, arg->FieldOf<float>(a));
    case KinetoArgRead::kIntTriple: return ReadTriple(c, arg->FieldOf<std::array<int32_t, 3>>(a));
    case KinetoArgRead::kString: return ReadStringValue(c, arg->FieldOf<std::string_view>(a));
    case KinetoArgRead::kRawJson: return ReadRaw(c, arg->FieldOf<std::string_view>(a));
  }
  return c.SkipValue();
}

bool ReadObject(Cursor& c, KinetoEvent& event, bool is_args);

// The event's own members, switched on length first: most keys are 2-4 bytes.
bool ReadTopLevelMember(Cursor& c, std::string_view key, KinetoEvent& event) {
  switch (key.size()) {
    case 2:
      if (key == "ph") {
        std::string_view ph;
        if (!ReadStringValue(c, ph)) return false;
        if (!ph.empty()) event.ph = ph[0];
        return true;
      }
      if (key == "ts") return ReadMicroseconds(c, event.ts, event.ts_ns_known, event.ts_ns);
      if (key == "id") {
        int64_t id = kNoValue;
        if (!ReadInt(c, id)) return false;
        event.flow_id = id;
        return true;
      }
      break;
    case 3:
      if (key == "cat") return ReadStringValue(c, event.cat);
      if (key == "dur") return ReadMicroseconds(c, event.dur, event.dur_ns_known, event.dur_ns);
      if (key == "pid") return ReadId(c, event.pid);
      if (key == "tid") return ReadId(c, event.tid);
      break;
    case 4:
      if (key == "name") return ReadStringValue(c, event.name);
      if (key == "args") {
        if (*c.p != '{') return c.Decline();
        event.has_args = true;
        return ReadObject(c, event, /*is_args=*/true);
      }
      break;
    default: break;
  }
  return c.SkipValue();
}

bool ReadObject(Cursor& c, KinetoEvent& event, bool is_args) {
  if (!c.Expect('{') || !c.SkipSpaces()) return false;
  if (*c.p == '}') {
    ++c.p;
    return true;
  }
  for (bool done = false; !done;) {
    if (*c.p != '"') return c.Decline();
    std::string_view key;
    if (!c.Key(key)) return false;
    bool ok = true;
    if (is_args) {
      ok = ReadArg(c, key, event);
    } else {
      ok = ReadTopLevelMember(c, key, event);
    }
    if (!ok || !c.NextMember(done)) return false;
  }
  return true;
}

}  // namespace

FastReadResult ReadEventFast(const char* data, size_t size, KinetoEvent& event, size_t* consumed) {
  event.Reset();
  Cursor c{data, data + size};
  if (ReadObject(c, event, /*is_args=*/false)) {
    *consumed = static_cast<size_t>(c.p - data);
    return FastReadResult::kOk;
  }
  return c.declined ? FastReadResult::kDeclined : FastReadResult::kIncomplete;
}

}  // namespace gpuwhy
