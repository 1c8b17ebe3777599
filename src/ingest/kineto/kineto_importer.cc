// Placeholder until the streaming importer lands.
#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {

StatusOr<Trace> ImportKinetoFile(const std::string& path, const KinetoImportOptions&) {
  return Status(StatusCode::kUnimplemented, path + ": kineto importer not built yet");
}

StatusOr<Trace> ImportKinetoBytes(std::string_view, const std::string& name, const KinetoImportOptions&) {
  return Status(StatusCode::kUnimplemented, name + ": kineto importer not built yet");
}

}  // namespace gpuwhy
