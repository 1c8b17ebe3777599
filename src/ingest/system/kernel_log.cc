// Kernel logs in every timestamp format found on GPU nodes:
//   [Sun Feb 23 16:24:18 2025] msg                      dmesg -T (ctime, local time)
//   kern  :warn  : 2025-01-21T04:41:44,283302+00:00 msg  dmesg --decode --time-format iso
//   2024-11-15T05:39:15,491363+00:00 msg                 dmesg --time-format iso
//   2025-01-02T15:20:12+0800 host kernel: msg            journalctl -k -o short-iso
//   6,3973,227996636,-;msg                               /dev/kmsg (µs since boot)
//   <6>[    2.608284] msg, [    2.608284] msg            dmesg -r, plain dmesg, pstore
//   Nov 29 14:45:36 host kernel: msg                     kern.log, journalctl -k (no year)
// Lines without a timestamp (continuations, pstore headers) are kept as untimed messages.
#include <array>

#include <fmt/format.h>

#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

using system::TextLine;

struct Stamp {
  std::string text;
  std::optional<int64_t> epoch_ns;
  std::optional<int64_t> since_boot_ns;
};

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// At most 18 digits: anything longer cannot be a field of a time stamp and would overflow.
bool Digits(std::string_view s, size_t pos, size_t n, int64_t& out) {
  if (pos + n > s.size() || n > 18) return false;
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// int64 nanoseconds since 1970 end in 2262: a year outside this range is not a log stamp.
bool PlausibleYear(int64_t y) { return y >= 1970 && y <= 2200; }

int64_t EpochNs(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s) {
  return ((DaysFromCivil(y, mo, d) * 24 + h) * 3600 + mi * 60 + s) * 1'000'000'000;
}

// "2025-01-21T04:41:44,283302+00:00" / "…+0800" / "…Z" at the start of |s|; consumes it.
bool ParseIso(std::string_view& s, Stamp& stamp) {
  int64_t y, mo, d, h, mi, sec;
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') {
    return false;
  }
  if (!Digits(s, 0, 4, y) || !Digits(s, 5, 2, mo) || !Digits(s, 8, 2, d) || !Digits(s, 11, 2, h) ||
      !Digits(s, 14, 2, mi) || !Digits(s, 17, 2, sec) || mo < 1 || mo > 12 || d < 1 || d > 31 ||
      !PlausibleYear(y)) {
    return false;
  }
  size_t pos = 19;
  int64_t frac_ns = 0;
  if (pos < s.size() && (s[pos] == ',' || s[pos] == '.')) {
    ++pos;
    int64_t scale = 100'000'000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      frac_ns += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
  }
  int64_t offset_s = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int64_t oh = 0, om = 0;
    int sign = s[pos] == '-' ? -1 : 1;
    if (!Digits(s, pos + 1, 2, oh)) return false;
    size_t mpos = pos + 3;
    if (mpos < s.size() && s[mpos] == ':') ++mpos;
    if (!Digits(s, mpos, 2, om)) return false;
    offset_s = sign * (oh * 3600 + om * 60);
    pos = mpos + 2;
  }
  stamp.text = std::string(s.substr(0, pos));
  stamp.epoch_ns = EpochNs(y, mo, d, h, mi, sec) + frac_ns - offset_s * 1'000'000'000;
  s.remove_prefix(pos);
  return true;
}

int MonthIndex(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (kMonths[i] == name) return static_cast<int>(i) + 1;
  }
  return 0;
}

// "[Sun Feb 23 16:24:18 2025] " (dmesg -T).
bool ParseCtimeBracket(std::string_view& s, Stamp& stamp) {
  if (s.size() < 26 || s[0] != '[') return false;
  size_t close = s.find(']');
  if (close == std::string_view::npos || close < 25) return false;
  std::vector<std::string_view> w = system::SplitWords(s.substr(1, close - 1));
  if (w.size() != 5) return false;
  int month = MonthIndex(w[1]);
  int64_t day, h, mi, sec, year;
  std::string_view hms = w[3];
  if (month == 0 || hms.size() != 8 || !Digits(w[2], 0, w[2].size(), day) ||
      !Digits(hms, 0, 2, h) || !Digits(hms, 3, 2, mi) || !Digits(hms, 6, 2, sec) ||
      !Digits(w[4], 0, 4, year) || day < 1 || day > 31 || !PlausibleYear(year)) {
    return false;
  }
  stamp.text = std::string(s.substr(0, close + 1));
  stamp.epoch_ns = EpochNs(year, month, day, h, mi, sec);
  s.remove_prefix(close + 1);
  return true;
}

// Seconds since boot beyond this (about 285 years) are not a time stamp; they would also
// overflow int64 nanoseconds.
constexpr int64_t kMaxUptimeSeconds = 9'000'000'000;

// "[    2.608284] " (plain dmesg, after an optional "<6>").
bool ParseBootBracket(std::string_view& s, Stamp& stamp) {
  if (s.empty() || s[0] != '[') return false;
  size_t close = s.find(']');
  if (close == std::string_view::npos) return false;
  std::string_view inner = system::Trim(s.substr(1, close - 1));
  size_t dot = inner.find('.');
  int64_t secs = 0, micros = 0;
  if (dot == std::string_view::npos || !Digits(inner, 0, dot, secs) ||
      !Digits(inner, dot + 1, inner.size() - dot - 1, micros) || inner.size() - dot - 1 > 9 ||
      secs > kMaxUptimeSeconds) {
    return false;
  }
  int64_t scale = 1;
  for (size_t i = inner.size() - dot - 1; i < 9; ++i) scale *= 10;
  stamp.text = std::string(s.substr(0, close + 1));
  stamp.since_boot_ns = secs * 1'000'000'000 + micros * scale;
  s.remove_prefix(close + 1);
  return true;
}

// "6,3973,227996636,-;" (/dev/kmsg: priority, sequence, µs since boot, flags).
bool ParseKmsg(std::string_view& s, Stamp& stamp) {
  size_t semi = s.find(';');
  if (semi == std::string_view::npos || semi > 64) return false;
  std::vector<std::string_view> parts;
  size_t pos = 0;
  std::string_view head = s.substr(0, semi);
  while (pos <= head.size()) {
    size_t comma = head.find(',', pos);
    if (comma == std::string_view::npos) comma = head.size();
    parts.push_back(head.substr(pos, comma - pos));
    pos = comma + 1;
  }
  int64_t prio, seq, usec;
  if (parts.size() < 4 || !Digits(parts[0], 0, parts[0].size(), prio) || parts[0].empty() ||
      !Digits(parts[1], 0, parts[1].size(), seq) || parts[1].empty() ||
      !Digits(parts[2], 0, parts[2].size(), usec) || parts[2].empty() ||
      usec > kMaxUptimeSeconds * 1'000'000) {
    return false;
  }
  stamp.text = std::string(head);
  stamp.since_boot_ns = usec * 1000;
  s.remove_prefix(semi + 1);
  return true;
}

// "Nov 29 14:45:36 host kernel: " (syslog: no year, so no epoch).
bool ParseSyslog(std::string_view& s, Stamp& stamp) {
  if (s.size() < 16 || MonthIndex(s.substr(0, 3)) == 0 || s[3] != ' ') return false;
  std::vector<std::string_view> w = system::SplitWords(s.substr(0, std::min<size_t>(s.size(), 64)));
  if (w.size() < 4 || w[2].size() != 8 || w[2][2] != ':' || w[2][5] != ':') return false;
  size_t kernel = s.find(" kernel: ");
  if (kernel == std::string_view::npos || kernel > 80) return false;
  stamp.text = std::string(s.substr(0, w[2].data() + w[2].size() - s.data()));
  s.remove_prefix(kernel + 9);
  return true;
}

// Strips "kern  :warn  : " / "daemon:info  : " (dmesg --decode) and "<6>" (dmesg -r, pstore).
void StripLevel(std::string_view& s) {
  size_t first = s.find(':');
  if (first != std::string_view::npos && first > 0 && first <= 6) {
    size_t second = s.find(':', first + 1);
    auto letters = [](std::string_view part) {
      part = system::Trim(part);
      if (part.empty()) return false;
      for (char c : part) {
        if (c < 'a' || c > 'z') return false;
      }
      return true;
    };
    if (second != std::string_view::npos && second < first + 10 && letters(s.substr(0, first)) &&
        letters(s.substr(first + 1, second - first - 1))) {
      s.remove_prefix(second + 1);
      s = system::Trim(s);
      return;
    }
  }
  if (s.size() > 2 && s[0] == '<') {
    size_t close = s.find('>');
    int64_t prio;
    if (close != std::string_view::npos && close < 6 && Digits(s, 1, close - 1, prio)) {
      s.remove_prefix(close + 1);
    }
  }
}

// Splits a line into its timestamp and message; false when it has no known timestamp.
bool SplitStamp(std::string_view line, Stamp& stamp, std::string_view& message) {
  std::string_view s = line;
  StripLevel(s);
  if (ParseIso(s, stamp)) {
    s = system::Trim(s);
    // journalctl -o short-iso: "host kernel: msg".
    size_t kernel = s.find(" kernel: ");
    if (kernel != std::string_view::npos &&
        s.substr(0, kernel).find(' ') == std::string_view::npos) {
      s.remove_prefix(kernel + 9);
    }
    message = system::Trim(s);
    return true;
  }
  if (ParseCtimeBracket(s, stamp) || ParseBootBracket(s, stamp) || ParseKmsg(s, stamp) ||
      ParseSyslog(s, stamp)) {
    message = system::Trim(s);
    // kern.log repeats the boot stamp after the syslog header.
    Stamp inner;
    std::string_view rest = message;
    if (!stamp.since_boot_ns && ParseBootBracket(rest, inner)) {
      stamp.since_boot_ns = inner.since_boot_ns;
      message = system::Trim(rest);
    }
    return true;
  }
  return false;
}

// "NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout …"; false with
// |why| when the line names an Xid but does not have that shape.
bool ParseXid(std::string_view message, XidEvent& xid, std::string& why) {
  size_t at = message.find("NVRM: Xid");
  std::string_view s = message.substr(at + 9);
  s = system::Trim(s);
  if (s.starts_with("(")) {
    size_t close = s.find(')');
    if (close == std::string_view::npos) {
      why = "Xid line without ')' after the device";
      return false;
    }
    std::string_view device = s.substr(1, close - 1);
    if (device.starts_with("PCI:")) device.remove_prefix(4);
    xid.pci = std::string(device);
    s.remove_prefix(close + 1);
  }
  if (!s.starts_with(":")) {
    why = "Xid line without ':' before the code";
    return false;
  }
  s = system::Trim(s.substr(1));
  size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  std::optional<int64_t> code = system::ParseInt(s.substr(0, n));
  if (!code || *code > 100000) {
    why = "Xid line without a numeric code";
    return false;
  }
  xid.code = static_cast<int>(*code);
  s.remove_prefix(n);
  if (s.starts_with(",")) s = system::Trim(s.substr(1));
  if (s.starts_with("pid=")) {
    size_t comma = s.find(',');
    std::string_view pid = s.substr(4, comma == std::string_view::npos ? s.npos : comma - 4);
    if (std::optional<int64_t> value = system::ParseInt(pid)) xid.pid = *value;
    s = comma == std::string_view::npos ? std::string_view() : system::Trim(s.substr(comma + 1));
  }
  if (s.starts_with("name=")) {
    size_t comma = s.find(", ");
    std::string_view name = s.substr(5, comma == std::string_view::npos ? s.npos : comma - 5);
    if (name != "<unknown>") xid.process = std::string(name);
    s = comma == std::string_view::npos ? std::string_view() : system::Trim(s.substr(comma + 1));
  }
  xid.detail = std::string(s);
  return true;
}

// "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 11004, Non-fatal, Link 46 …" (NVSwitch errors
// the driver logs as the GPU's Xid).
bool ParseSxid(std::string_view message, NodeEvent& e) {
  size_t at = message.find("SXid (");
  if (at == std::string_view::npos) return false;
  std::string_view before = system::Trim(message.substr(0, at));
  if (before.ends_with(":")) before.remove_suffix(1);
  std::string_view s = message.substr(at + 6);
  size_t close = s.find(')');
  if (close == std::string_view::npos) return false;
  std::string_view pci = s.substr(0, close);
  if (pci.starts_with("PCI:")) pci.remove_prefix(4);
  s = system::Trim(s.substr(close + 1));
  if (!s.starts_with(":")) return false;
  s = system::Trim(s.substr(1));
  size_t n = 0;
  while (n < s.size() && n < 9 && s[n] >= '0' && s[n] <= '9') ++n;
  std::optional<int64_t> code = system::ParseInt(s.substr(0, n));
  if (!code) return false;
  e.kind = "sxid";
  e.code = static_cast<int>(*code);
  e.device = fmt::format("{}{}{}", before, before.empty() ? "" : " ", pci);
  s = system::Trim(s.substr(n));
  if (s.starts_with(",")) s = system::Trim(s.substr(1));
  e.detail = std::string(s);
  e.fatal = s.starts_with("Fatal") || s.starts_with("fatal");
  return true;
}

// The other lines an operator reads in a GPU node's kernel log.
bool ParseNodeEvent(std::string_view message, NodeEvent& e) {
  if (system::Contains(message, "SXid (")) return ParseSxid(message, e);
  if (system::Contains(message, "nvidia-peermem") &&
      (system::Contains(message, "ERROR") || system::Contains(message, "error"))) {
    e.kind = "peermem";
    e.detail = std::string(message.substr(message.find("nvidia-peermem")));
    return true;
  }
  // "pt_main_thread[2536443]: segfault at 7f79… ip … sp … error 4 in libnccl.so.2[7f7c…]".
  if (size_t seg = message.find(": segfault at "); seg != std::string_view::npos) {
    size_t in = message.find(" in ", seg);
    if (in == std::string_view::npos) return false;
    std::string_view lib = message.substr(in + 4);
    lib = lib.substr(0, lib.find_first_of("[ "));
    size_t err = message.find(" error ", seg);
    e.kind = "segfault";
    e.device = std::string(lib);
    e.detail = fmt::format(
        "{} {}", message.substr(0, seg),
        err == std::string_view::npos ? std::string_view() : message.substr(err + 1, in - err - 1));
    return true;
  }
  if (system::Contains(message, "file-max limit") && system::Contains(message, "reached")) {
    e.kind = "file_max";
    e.detail = std::string(message);
    return true;
  }
  if (system::Contains(message, "fallen off the bus")) {
    e.kind = "fell_off_bus";
    e.detail = std::string(message);
    return true;
  }
  return false;
}

}  // namespace

bool HasKernelLogTimestamp(std::string_view line) {
  Stamp stamp;
  std::string_view message;
  return SplitStamp(line, stamp, message);
}

Status ParseKernelLog(std::string_view text, std::string_view path, SystemFacts& facts) {
  for (const TextLine& line : system::SplitLines(text)) {
    if (system::Trim(line.text).empty()) continue;
    ++facts.kernel_log_lines;
    Stamp stamp;
    std::string_view message = system::Trim(line.text);
    if (!SplitStamp(line.text, stamp, message)) stamp = {};
    if (!system::Contains(message, "NVRM: Xid")) {
      NodeEvent event;
      if (ParseNodeEvent(message, event)) {
        event.time_text = stamp.text;
        event.quote = system::Quote(path, line);
        facts.node_events.push_back(std::move(event));
      }
      continue;
    }
    XidEvent xid;
    std::string why;
    if (!ParseXid(message, xid, why)) {
      facts.problems.Add(DataProblem::kUnparsedLine, system::LineError(path, line.number, why));
      continue;
    }
    xid.time_text = stamp.text;
    xid.epoch_ns = stamp.epoch_ns;
    xid.since_boot_ns = stamp.since_boot_ns;
    xid.quote = system::Quote(path, line);
    facts.xids.push_back(std::move(xid));
  }
  return Status::Ok();
}

}  // namespace gpuwhy
