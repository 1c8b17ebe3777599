// `nvidia-smi -q -x`: a small streaming XML reader (elements, text, entities, comments,
// declarations; attributes are skipped) feeding the same field table as the text reader. A
// truncated or mismatched document is an error naming the line; GPUs read before it are kept.
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "ingest/system/gpu_fields.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace {

using system::KeyedValue;

std::string DecodeEntities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    std::string_view entity = semi == std::string_view::npos ? "" : s.substr(i + 1, semi - i - 1);
    if (entity == "amp")
      out += '&';
    else if (entity == "lt")
      out += '<';
    else if (entity == "gt")
      out += '>';
    else if (entity == "quot")
      out += '"';
    else if (entity == "apos")
      out += '\'';
    else {
      out += '&';
      continue;
    }
    i = semi;
  }
  return out;
}

class XmlGpuReader {
 public:
  XmlGpuReader(std::string_view text, std::string_view path, SystemFacts& facts)
      : text_(text), path_(path), facts_(facts) {}

  Status Run() {
    while (pos_ < text_.size()) {
      size_t lt = text_.find('<', pos_);
      if (lt == std::string_view::npos) lt = text_.size();
      OnText(text_.substr(pos_, lt - pos_));
      Advance(lt);
      if (pos_ >= text_.size()) break;
      if (Status status = ReadMarkup(); !status.ok()) {
        FinishOpenGpu();
        return status;
      }
    }
    if (!stack_.empty()) {
      FinishOpenGpu();
      return Error(fmt::format("document ends inside <{}> (truncated?)", stack_.back()));
    }
    if (!saw_root_) return Error("no <nvidia_smi_log> element");
    return Status::Ok();
  }

 private:
  Status Error(std::string_view why) const {
    return InvalidArgument("{}", system::LineError(path_, line_, why));
  }

  // Moves to |to|, counting line breaks.
  void Advance(size_t to) {
    for (size_t i = pos_; i < to && i < text_.size(); ++i) line_ += text_[i] == '\n';
    pos_ = to;
  }

  void OnText(std::string_view raw) {
    std::string_view t = system::Trim(raw);
    if (t.empty() || stack_.empty()) return;
    text_value_ += DecodeEntities(t);
  }

  Status ReadMarkup() {
    std::string_view rest = text_.substr(pos_);
    if (rest.starts_with("<!--")) return Skip("-->", "unterminated comment");
    if (rest.starts_with("<?")) return Skip("?>", "unterminated declaration");
    if (rest.starts_with("<!")) return Skip(">", "unterminated <!DOCTYPE");
    size_t gt = rest.find('>');
    if (gt == std::string_view::npos) return Error("unterminated tag (truncated?)");
    std::string_view tag = rest.substr(1, gt - 1);
    int64_t tag_line = line_;
    Advance(pos_ + gt + 1);
    if (tag.starts_with("/")) return Close(system::Trim(tag.substr(1)), tag_line);
    bool self_closing = tag.ends_with("/");
    if (self_closing) tag.remove_suffix(1);
    std::string_view name = tag.substr(0, tag.find_first_of(" \t\r\n"));
    if (name.empty()) return Error("empty tag name");
    Open(name, tag);
    if (self_closing) return Close(name, tag_line);
    return Status::Ok();
  }

  Status Skip(std::string_view end, std::string_view why) {
    size_t at = text_.find(end, pos_);
    if (at == std::string_view::npos) return Error(why);
    Advance(at + end.size());
    return Status::Ok();
  }

  void Open(std::string_view name, std::string_view tag) {
    if (stack_.empty() && name == "nvidia_smi_log") saw_root_ = true;
    stack_.emplace_back(name);
    text_value_.clear();
    if (stack_.size() == 2 && name == "gpu") {
      gpu_.emplace();
      gpu_values_.clear();
      size_t id = tag.find("id=\"");
      if (id != std::string_view::npos) {
        size_t end = tag.find('"', id + 4);
        gpu_->pci_bus_id = std::string(tag.substr(id + 4, end - id - 4));
      }
    }
  }

  Status Close(std::string_view name, int64_t tag_line) {
    if (stack_.empty() || stack_.back() != name) {
      return Error(fmt::format("</{}> closes {}", name,
                               stack_.empty() ? "nothing" : "<" + stack_.back() + ">"));
    }
    if (!text_value_.empty()) OnLeaf(tag_line);
    text_value_.clear();
    stack_.pop_back();
    if (stack_.size() == 1 && name == "gpu") FinishOpenGpu();
    return Status::Ok();
  }

  void OnLeaf(int64_t tag_line) {
    if (stack_.size() == 2) {
      if (stack_[1] == "driver_version") driver_ = text_value_;
      if (stack_[1] == "cuda_version") cuda_ = text_value_;
      return;
    }
    if (!gpu_ || stack_.size() < 3) return;
    std::string key;
    for (size_t i = 2; i < stack_.size(); ++i) key += (i > 2 ? "/" : "") + stack_[i];
    // Quote the element as one line of XML.
    quoted_.push_back(fmt::format("<{0}>{1}</{0}>", stack_.back(), text_value_));
    gpu_values_.push_back({key, text_value_, {tag_line, quoted_.back()}});
  }

  void FinishOpenGpu() {
    if (!gpu_) return;
    gpu_->source = "nvidia-smi -q -x";
    gpu_->file = std::string(path_);
    gpu_->driver_version = driver_;
    gpu_->cuda_version = cuda_;
    system::FillGpuState(system::GpuDialect::kQueryXml, gpu_values_, path_, *gpu_);
    facts_.gpus.push_back(std::move(*gpu_));
    gpu_.reset();
  }

  std::string_view text_;
  std::string_view path_;
  SystemFacts& facts_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  bool saw_root_ = false;
  std::vector<std::string> stack_;
  std::string text_value_;
  std::string driver_, cuda_;
  std::optional<GpuState> gpu_;
  std::vector<KeyedValue> gpu_values_;
  std::deque<std::string> quoted_;  // stable storage for the quoted lines
};

}  // namespace

Status ParseNvidiaSmiXml(std::string_view text, std::string_view path, SystemFacts& facts) {
  return XmlGpuReader(text, path, facts).Run();
}

}  // namespace gpuwhy
