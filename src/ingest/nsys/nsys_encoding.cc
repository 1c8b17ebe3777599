#include "ingest/nsys/nsys_encoding.h"

#include <fmt/format.h>

namespace gpuwhy {
namespace {

bool Contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

std::string_view DirectionWord(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kHostToDevice: return "HtoD";
    case CopyDirection::kDeviceToHost: return "DtoH";
    case CopyDirection::kDeviceToDevice: return "DtoD";
    case CopyDirection::kHostToHost: return "HtoH";
    case CopyDirection::kPeerToPeer: return "PtoP";
    case CopyDirection::kUnknown: break;
  }
  return "Unknown";
}

std::string_view MemoryWord(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable: return "Pageable";
    case MemoryKind::kPinned: return "Pinned";
    case MemoryKind::kDevice: return "Device";
    case MemoryKind::kArray: return "Array";
    case MemoryKind::kManaged: return "Managed";
    case MemoryKind::kUnknown: break;
  }
  return "Unknown";
}

// Arrays count as device memory for direction: HtoA is a host-to-device copy.
CopyDirection DirectionFromName(std::string_view upper) {
  if (Contains(upper, "PTOP") || Contains(upper, "PEER")) return CopyDirection::kPeerToPeer;
  if (Contains(upper, "HTOD") || Contains(upper, "HTOA")) return CopyDirection::kHostToDevice;
  if (Contains(upper, "DTOH") || Contains(upper, "ATOH")) return CopyDirection::kDeviceToHost;
  if (Contains(upper, "DTOD") || Contains(upper, "ATOA") || Contains(upper, "ATOD") ||
      Contains(upper, "DTOA")) {
    return CopyDirection::kDeviceToDevice;
  }
  if (Contains(upper, "HTOH")) return CopyDirection::kHostToHost;
  return CopyDirection::kUnknown;
}

MemoryKind MemoryFromName(std::string_view upper) {
  if (Contains(upper, "PAGEABLE")) return MemoryKind::kPageable;
  if (Contains(upper, "PINNED")) return MemoryKind::kPinned;
  if (Contains(upper, "MANAGED")) return MemoryKind::kManaged;
  if (Contains(upper, "ARRAY")) return MemoryKind::kArray;
  if (Contains(upper, "DEVICE")) return MemoryKind::kDevice;
  return MemoryKind::kUnknown;
}

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

}  // namespace

NsysEnums::NsysEnums()
    : directions_{CopyDirection::kUnknown,        CopyDirection::kHostToDevice,
                  CopyDirection::kDeviceToHost,   CopyDirection::kHostToDevice,
                  CopyDirection::kDeviceToHost,   CopyDirection::kDeviceToDevice,
                  CopyDirection::kDeviceToDevice, CopyDirection::kDeviceToDevice,
                  CopyDirection::kDeviceToDevice, CopyDirection::kHostToHost,
                  CopyDirection::kPeerToPeer},
      memory_{MemoryKind::kPageable, MemoryKind::kPinned,  MemoryKind::kDevice,
              MemoryKind::kArray,    MemoryKind::kManaged, MemoryKind::kDevice,
              MemoryKind::kManaged,  MemoryKind::kUnknown} {}

void NsysEnums::AdoptCopyKindNames(const std::vector<std::pair<int64_t, std::string_view>>& names) {
  for (const auto& [id, name] : names) {
    if (id < 0 || id > 255) continue;
    if (directions_.size() <= static_cast<size_t>(id))
      directions_.resize(id + 1, CopyDirection::kUnknown);
    directions_[id] = DirectionFromName(Upper(name));
  }
}

void NsysEnums::AdoptMemoryKindNames(
    const std::vector<std::pair<int64_t, std::string_view>>& names) {
  for (const auto& [id, name] : names) {
    if (id < 0 || id > 255) continue;
    if (memory_.size() <= static_cast<size_t>(id)) memory_.resize(id + 1, MemoryKind::kUnknown);
    memory_[id] = MemoryFromName(Upper(name));
  }
}

CopyDirection NsysEnums::Direction(int64_t copy_kind) const {
  if (copy_kind < 0 || static_cast<size_t>(copy_kind) >= directions_.size())
    return CopyDirection::kUnknown;
  return directions_[copy_kind];
}

MemoryKind NsysEnums::Memory(int64_t mem_kind) const {
  if (mem_kind < 0 || static_cast<size_t>(mem_kind) >= memory_.size()) return MemoryKind::kUnknown;
  return memory_[mem_kind];
}

std::string_view NsysSyncName(int64_t sync_type) {
  switch (sync_type) {
    case 1: return "Event Sync";
    case 2: return "Stream Wait Event";
    case 3: return "Stream Sync";
    case 4: return "Context Sync";
    default: return "Unknown Sync";
  }
}

std::string MemcpyDisplayName(CopyDirection direction, MemoryKind src, MemoryKind dst) {
  return fmt::format("Memcpy {} ({} -> {})", DirectionWord(direction), MemoryWord(src),
                     MemoryWord(dst));
}

}  // namespace gpuwhy
