#include "core/kernels/instantiation.h"

namespace rammer::kernels {

std::string cudaSignature(const std::string& name, size_t numInputs, size_t numOutputs, bool restrictPointers) {
  const std::string r = restrictPointers ? "__restrict__ " : "";
  std::string s = "__device__ void " + name + "(int rtask_id, int tid, float* smem";
  for (size_t i = 0; i < numInputs; ++i) s += ", const float* " + r + "in" + std::to_string(i);
  for (size_t i = 0; i < numOutputs; ++i) s += ", float* " + r + "out" + std::to_string(i);
  return s + ") {\n";
}

std::string llArg(int64_t v) { return std::to_string(v) + "LL"; }

std::string boxArg(const std::vector<int64_t>& ext, const std::vector<int64_t>& stride) {
  std::string s = "RammerBox<";
  for (size_t d = ext.size(); d-- > 0;) s += (d + 1 < ext.size() ? ", " : "") + llArg(ext[d]) + ", " + llArg(stride.at(d));
  return s + ">";
}

std::string dimsArg(const std::vector<int64_t>& dims) {
  std::string s = "RammerDims<";
  for (size_t d = 0; d < dims.size(); ++d) s += (d ? ", " : "") + llArg(dims[d]);
  return s + ">";
}

namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s;
}

}  // namespace

std::vector<std::string> rtaskArgs(size_t numInputs, size_t numOutputs) {
  std::vector<std::string> args = {"rtask_id", "tid", "smem"};
  for (size_t i = 0; i < numInputs; ++i) args.push_back("in" + std::to_string(i));
  for (size_t i = 0; i < numOutputs; ++i) args.push_back("out" + std::to_string(i));
  return args;
}

std::string cudaInstantiation(const std::string& name, size_t numInputs, size_t numOutputs, const TemplateCall& call) {
  const std::vector<std::string> args = call.args.empty() ? rtaskArgs(numInputs, numOutputs) : call.args;
  return cudaSignature(name, numInputs, numOutputs, call.restrictPointers) + call.locals + "  " + call.name + "<" + joined(call.templateArgs) +
         ">(" + joined(args) + ");\n}\n";
}

std::string cudaExpressionOp(const std::string& name, size_t arity, const std::string& statements,
                             const std::string& result, const std::string& prefix) {
  std::string params;
  for (size_t k = 0; k < arity; ++k) params += (k ? ", float " : "float ") + prefix + std::to_string(k);
  return "  struct " + name + " {\n    __device__ __forceinline__ static float apply(" + params + ") {\n" + statements +
         "      return " + result + ";\n    }\n  };\n";
}

std::string cudaEmptyFunction(const std::string& name, size_t numInputs, size_t numOutputs) {
  return cudaSignature(name, numInputs, numOutputs) + "  (void)rtask_id; (void)tid; (void)smem;\n}\n";
}

std::string cudaTableReader(const std::string& type, const std::string& table, const std::string& elementType) {
  return "  struct " + type + " {\n    __device__ __forceinline__ static const " + elementType + "* values() { return " +
         table + "; }\n  };\n";
}

std::string cudaIntTable(const std::string& type, const std::string& name, const std::vector<int64_t>& values) {
  std::string s = "static __device__ const " + type + " " + name + "[" +
                  std::to_string(values.empty() ? 1 : values.size()) + "] = {";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]) + (type == "int" ? "" : "LL");
  if (values.empty()) s += "0";
  return s + "};\n";
}

}  // namespace rammer::kernels
