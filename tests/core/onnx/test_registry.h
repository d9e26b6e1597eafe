#pragma once
// A tiny operator registry for importer tests, so that they exercise the
// importer alone and do not depend on the real operator library being
// complete. The real registry is used by the tests named *Builtin*.
#include <initializer_list>
#include <string>

#include "core/onnx/importer.h"
#include "core/ops/op_registry.h"

namespace rammer::test {

inline std::vector<ir::TensorType> sameAsInput0(const ops::OpContext& ctx) { return {ctx.type(0)}; }

inline ops::OpDef opDef(std::string type, ops::InferFn infer, ops::ComputeFn compute = {}) {
  ops::OpDef d;
  d.type = std::move(type);
  d.infer = std::move(infer);
  d.compute = std::move(compute);
  return d;
}

// Options that import with `registry` instead of the builtin one.
inline onnx_import::ImportOptions using_(const ops::OpRegistry& registry) {
  onnx_import::ImportOptions o;
  o.registry = &registry;
  return o;
}

inline ops::OpRegistry testRegistry() {
  ops::OpRegistry r;
  r.add(opDef("Relu", sameAsInput0));
  r.add(opDef("Identity", sameAsInput0));
  r.add(opDef("Add", [](const ops::OpContext& ctx) -> std::vector<ir::TensorType> {
                     if (ctx.dtype(0) != ctx.dtype(1))
                       ctx.fail("input types differ: " + std::string(ir::dtypeName(ctx.dtype(0))) + " and " +
                                std::string(ir::dtypeName(ctx.dtype(1))));
                     return {ctx.rank(0) >= ctx.rank(1) ? ctx.type(0) : ctx.type(1)};
                   }));
  r.add(opDef("Constant", [](const ops::OpContext& ctx) -> std::vector<ir::TensorType> {
                     const ir::Tensor* t = ctx.attrs().getTensor("value");
                     if (!t) ctx.fail("needs a 'value' tensor");
                     return {t->type()};
                   },
                   [](const ops::OpContext& ctx) -> std::vector<ir::Tensor> {
                     return {*ctx.attrs().getTensor("value")};
                   }));
  return r;
}

// Ops whose outputs inference leaves entirely to the model's declarations.
inline void addOpaqueOps(ops::OpRegistry& r, std::initializer_list<const char*> types) {
  for (const char* t : types)
    r.add(opDef(t, [](const ops::OpContext& ctx) {
      return std::vector<ir::TensorType>(ctx.numOutputs(), ir::TensorType{{}, {}, false});
    }));
}

}  // namespace rammer::test
