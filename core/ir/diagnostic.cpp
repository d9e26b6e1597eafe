#include "core/ir/diagnostic.h"

namespace rammer::ir {

std::string formatDiagnostic(const Diagnostic& d) {
  std::string out;
  if (!d.file.empty()) out += d.file + ": ";
  if (d.severity == Severity::Warning) out += "warning: ";
  if (d.severity == Severity::Note) out += "note: ";
  if (!d.node.empty()) out += "node '" + d.node + "': ";
  return out + d.message;
}

std::string formatDiagnostics(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) {
    if (!out.empty()) out += '\n';
    out += formatDiagnostic(d);
  }
  return out;
}

Diagnostic makeError(std::string message, std::string node, std::string file) {
  Diagnostic d;
  d.message = std::move(message);
  d.file = std::move(file);
  d.node = std::move(node);
  return d;
}

}  // namespace rammer::ir
