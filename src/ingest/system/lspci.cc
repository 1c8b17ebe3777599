// `lspci -vvv`: a device line ("19:00.0 3D controller: NVIDIA Corporation …") opens a device;
// its "LnkCap: Port #0, Speed 32GT/s, Width x16, …" and "LnkSta: Speed 32GT/s (ok), Width x16
// (ok)" lines give the link's capability and state. pciutils ≥ 3.6 marks a reduced link
// "(downgraded)"; older versions print the bare values, so current < capability counts too.
#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

using system::TextLine;

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// "19:00.0 ..." or "0000:19:00.0 ...": the address length, 0 when the line is no device line.
size_t DeviceAddressLength(std::string_view s) {
  auto bdf = [&](size_t p) {
    return s.size() > p + 7 && IsHex(s[p]) && IsHex(s[p + 1]) && s[p + 2] == ':' &&
           IsHex(s[p + 3]) && IsHex(s[p + 4]) && s[p + 5] == '.' && IsHex(s[p + 6]) &&
           s[p + 7] == ' ';
  };
  if (bdf(0)) return 7;
  if (s.size() > 5 && IsHex(s[0]) && IsHex(s[1]) && IsHex(s[2]) && IsHex(s[3]) && s[4] == ':' &&
      bdf(5)) {
    return 12;
  }
  return 0;
}

PcieDeviceKind KindOf(std::string_view description) {
  bool nvidia = system::Contains(description, "NVIDIA");
  if (nvidia && (system::Contains(description, "3D controller") ||
                 system::Contains(description, "VGA compatible controller"))) {
    return PcieDeviceKind::kGpu;
  }
  if (system::Contains(description, "Ethernet controller") ||
      system::Contains(description, "Infiniband controller") ||
      system::Contains(description, "Network controller")) {
    return PcieDeviceKind::kNic;
  }
  if (system::Contains(description, "bridge") || system::Contains(description, "Bridge")) {
    return PcieDeviceKind::kBridge;
  }
  return PcieDeviceKind::kOther;
}

// "Speed 16GT/s (ok), Width x16 (ok)" -> speed, width and the downgraded marks.
struct LinkValues {
  std::optional<double> speed;
  std::optional<int> width;
  bool speed_down = false;
  bool width_down = false;
};

LinkValues ReadLinkValues(std::string_view s) {
  LinkValues v;
  size_t speed = s.find("Speed ");
  if (speed != std::string_view::npos) {
    std::string_view rest = s.substr(speed + 6);
    v.speed = system::LeadingNumber(rest);
    size_t comma = rest.find(',');
    v.speed_down = system::Contains(rest.substr(0, comma), "downgraded");
  }
  size_t width = s.find("Width x");
  if (width != std::string_view::npos) {
    std::string_view rest = s.substr(width + 7);
    if (std::optional<double> w = system::LeadingNumber(rest)) v.width = static_cast<int>(*w);
    size_t comma = rest.find(',');
    v.width_down = system::Contains(rest.substr(0, comma), "downgraded");
  }
  return v;
}

}  // namespace

Status ParseLspci(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::optional<PcieLink> current;
  bool has_device = false;
  bool after_status = false;  // the previous line was LnkSta
  auto flush = [&] {
    if (current && (current->max_speed_gts || current->speed_gts)) {
      PcieLink& link = *current;
      if (link.speed_gts && link.max_speed_gts && *link.speed_gts < *link.max_speed_gts) {
        link.speed_downgraded = true;
      }
      if (link.width && link.max_width && *link.width < *link.max_width) {
        link.width_downgraded = true;
      }
      facts.pcie_links.push_back(std::move(link));
    }
    current.reset();
  };
  for (const TextLine& line : system::SplitLines(text)) {
    std::string_view s = line.text;
    if (size_t n = DeviceAddressLength(s); n > 0) {
      flush();
      current.emplace();
      current->address = std::string(s.substr(0, n));
      current->description = std::string(system::Trim(s.substr(n)));
      current->kind = KindOf(current->description);
      current->source = "lspci -vvv";
      has_device = true;
      continue;
    }
    std::string_view t = system::Trim(s);
    // The flags line under LnkSta: "TrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-".
    if (current && after_status && system::Contains(t, "DLActive-")) {
      current->data_link_inactive = true;
    }
    after_status = false;
    bool cap = t.starts_with("LnkCap:");
    bool sta = t.starts_with("LnkSta:");
    if (!cap && !sta) continue;
    if (!current) {
      // An excerpt: the link lines without their device.
      current.emplace();
      current->source = "lspci -vvv";
      current->kind = PcieDeviceKind::kUnknown;
    }
    LinkValues v = ReadLinkValues(t);
    if (!v.speed && !v.width && !system::Contains(t, "unknown")) {
      facts.problems.Add(DataProblem::kUnparsedLine,
                         system::LineError(path, line.number, "link line without Speed or Width"));
      continue;
    }
    if (cap) {
      current->max_speed_gts = v.speed;
      current->max_width = v.width;
      current->cap_quote = system::Quote(path, line);
    } else {
      current->speed_gts = v.speed;
      current->width = v.width;
      current->speed_downgraded = v.speed_down;
      current->width_downgraded = v.width_down;
      current->sta_quote = system::Quote(path, line);
      after_status = true;
      // An excerpt lists pairs of lines: close the device after its state.
      if (!has_device) flush();
    }
  }
  flush();
  return Status::Ok();
}

}  // namespace gpuwhy
