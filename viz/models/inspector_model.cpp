#include "viz/models/inspector_model.h"

#include <cmath>

#include "core/ir/dtype.h"
#include "core/ops/model_summary.h"
#include "core/sim/plan_figures.h"
#include "viz/models/graph_display.h"
#include "viz/models/op_category_style.h"
#include "viz/models/parameter_stats.h"

namespace rammer::viz {

struct InspectorModel::Item {
  QString property;
  QString value;
  Item* parent = nullptr;
  int row = 0;
  std::vector<std::unique_ptr<Item>> children;

  Item* add(const QString& p, const QString& v = {}) {
    auto item = std::make_unique<Item>();
    item->property = p;
    item->value = v;
    item->parent = this;
    item->row = static_cast<int>(children.size());
    children.push_back(std::move(item));
    return children.back().get();
  }
};

namespace {

using Item = InspectorModel::Item;

QString qs(const std::string& s) { return QString::fromStdString(s); }

// 1234567 -> "1.23 M" with `unit` appended; small numbers stay exact.
QString scaled(double v, const QString& unit) {
  static const char* const prefixes[] = {"", " k", " M", " G", " T", " P"};
  int p = 0;
  double a = std::fabs(v);
  while (a >= 1000 && p < 5) {
    a /= 1000;
    v /= 1000;
    ++p;
  }
  const QString num = p == 0 && v == std::floor(v) ? QString::number(static_cast<qint64>(v)) : QString::number(v, 'f', 2);
  return num + QString::fromLatin1(prefixes[p]) + (p == 0 && !unit.isEmpty() ? " " : "") + unit;
}

QString bytesText(double bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return (u == 0 ? QString::number(static_cast<qint64>(bytes)) : QString::number(bytes, 'f', 2)) + " " + units[u];
}

QString statNumber(double v) { return QString::number(v, 'g', 6); }

QString typeText(const ir::TensorType& t) {
  return qs(std::string(ir::dtypeName(t.dtype))) + " " + qs(shapeLabel(t));
}

void addParameter(Item* section, const ir::Value& v) {
  const ir::Tensor& t = *v.constant;
  const double bytes = static_cast<double>(t.byteSize());
  Item* p = section->add(qs(v.name), typeText(t.type()) + QString::fromUtf8(" \u00B7 ") + bytesText(bytes));
  p->add("Elements", QString::number(t.numel()));
  const std::optional<TensorStats> s = tensorStats(t);
  if (!s) return;
  if (s->finite > 0) {
    p->add("Min", statNumber(s->min));
    p->add("Max", statNumber(s->max));
    p->add("Mean", statNumber(s->mean));
    p->add("Std. dev.", statNumber(s->stddev));
  }
  const double zeroPct = s->count ? 100.0 * static_cast<double>(s->zeros) / static_cast<double>(s->count) : 0;
  p->add("Zeros", QString::number(s->zeros) + " (" + QString::number(zeroPct, 'f', 1) + " %)");
  if (s->nonFinite > 0) p->add("NaN / Inf", QString::number(s->nonFinite));
}

void addKernel(Item* root, const schedule::Plan& plan, ir::NodeId node) {
  Item* k = root->add("rKernel");
  const schedule::PlannedOp* op = nullptr;
  for (const schedule::PlannedOp& o : plan.ops)
    if (o.node == node) op = &o;
  if (!op) {
    k->value = "not in the plan";
    return;
  }
  if (op->isView) {
    k->value = "view: aliases its input, no rTasks";
    return;
  }
  const kernels::RKernel& r = op->kernel;
  k->value = qs(r.name);
  k->add("Name", qs(r.name));
  k->add("Family", qs(r.family));
  k->add("Chosen because", qs(op->kernelRule));
  k->add("Policy", qs(plan.policy));
  k->add("rTasks", QString::number(r.numRTasks));
  k->add("Threads per rTask", QString::number(r.block.x) + QString::fromUtf8("\u00D7") + QString::number(r.block.y) +
                                  QString::fromUtf8("\u00D7") + QString::number(r.block.z) + " = " +
                                  QString::number(r.threads()));
  k->add("Shared memory", bytesText(static_cast<double>(r.sharedBytes)));
  k->add(r.regsCompiled ? "Registers (compiled)" : "Registers (estimate)", QString::number(r.regsEstimate));
  k->add("__syncthreads per rTask", QString::number(r.syncCount));
  k->add("FLOPs", scaled(r.flops, "FLOP"));
  k->add("Memory traffic", bytesText(r.bytes));
  if (r.bytes > 0) k->add("Arithmetic intensity", QString::number(r.flops / r.bytes, 'f', 2) + " FLOP/B");
  if (r.zeroOutputsFirst) k->add("Zeroes outputs first", "yes (split-K atomics)");
  if (!r.params.empty()) {
    Item* params = k->add("Parameters", QString::number(r.params.size()));
    for (const auto& [name, value] : r.params) params->add(qs(name), QString::number(value));
  }
}

void build(Item* root, const ir::Graph& g, ir::NodeId id, const schedule::Plan* plan) {
  const ir::Node& n = g.node(id);
  const bool fused = n.opType == "FusedElementwise";

  Item* op = root->add("Operator", qs(n.opType));
  op->add("Name", qs(n.name));
  op->add("Type", qs(n.domain.empty() ? n.opType : n.domain + "::" + n.opType));
  op->add("Category", qs(std::string(styleFor(categoryOf(n)).label)));
  if (fused) {
    try {
      op->add("Expression", qs(n.attrs.getString("expr", "")));
      const std::vector<std::string> members = n.attrs.getStrings("fused_nodes");
      if (!members.empty()) {
        Item* m = op->add("Fused ops", QString::number(members.size()));
        for (const std::string& s : members) {
          const size_t colon = s.find(':');
          if (colon == std::string::npos) m->add(qs(s));
          else m->add(qs(s.substr(0, colon)), qs(s.substr(colon + 1)));
        }
      }
    } catch (const std::exception& e) {
      op->add("Problem", qs(e.what()));
    }
  }

  // For a fused node the expression and members are shown above.
  std::vector<std::pair<std::string, const ir::AttrValue*>> attrs;
  for (const auto& [name, value] : n.attrs.all())
    if (!(fused && (name == "expr" || name == "fused_nodes"))) attrs.emplace_back(name, &value);
  if (!attrs.empty()) {
    Item* a = root->add("Attributes", QString::number(attrs.size()));
    for (const auto& [name, value] : attrs) a->add(qs(name), qs(ir::attrToString(*value)));
  }

  Item* in = root->add("Inputs", QString::number(n.inputs.size()));
  std::vector<ir::ValueId> params;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ir::ValueId v = n.inputs[i];
    if (v == ir::kNone) {
      in->add("#" + QString::number(i), "(omitted)");
      continue;
    }
    const ir::Value& val = g.value(v);
    Item* it = in->add(qs(val.name), typeText(val.type));
    if (val.constant) {
      it->add("From", "parameter");
      if (std::find(params.begin(), params.end(), v) == params.end()) params.push_back(v);
    } else if (val.producer != ir::kNone) {
      it->add("From", qs(g.node(val.producer).name));
    } else {
      it->add("From", val.isGraphInput ? "graph input" : "nothing (unset)");
    }
  }

  Item* out = root->add("Outputs", QString::number(n.outputs.size()));
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const ir::ValueId v = n.outputs[i];
    if (v == ir::kNone) {
      out->add("#" + QString::number(i), "(omitted)");
      continue;
    }
    const ir::Value& val = g.value(v);
    Item* it = out->add(qs(val.name), typeText(val.type));
    QStringList readers;
    for (ir::NodeId c : val.consumers) readers << qs(g.node(c).name);
    if (val.isGraphOutput) readers << "graph output";
    it->add("To", readers.isEmpty() ? QString("nothing") : readers.join(", "));
  }

  if (!params.empty()) {
    Item* p = root->add("Parameters", QString::number(params.size()));
    for (ir::ValueId v : params) addParameter(p, g.value(v));
  }
  if (plan) addKernel(root, *plan, id);
}

}  // namespace

InspectorModel::InspectorModel(QObject* parent) : QAbstractItemModel(parent), root_(std::make_unique<Item>()) {}

InspectorModel::~InspectorModel() = default;

void InspectorModel::setNode(const ir::Graph& graph, ir::NodeId node, const schedule::Plan* plan) {
  beginResetModel();
  root_ = std::make_unique<Item>();
  node_ = node;
  if (node < 0 || static_cast<size_t>(node) >= graph.numNodeSlots() || graph.node(node).removed) {
    root_->add("Problem", "node " + QString::number(node) + " is not in the graph");
    node_ = ir::kNone;
  } else {
    build(root_.get(), graph, node, plan);
  }
  endResetModel();
}

void InspectorModel::setOverview(const ir::Graph& graph, const schedule::Plan* plan, const sim::Trace* predicted) {
  beginResetModel();
  root_ = std::make_unique<Item>();
  node_ = ir::kNone;
  const ops::ModelSummary s = ops::summarize(graph);
  Item* model = root_->add("Model", qs(s.name));
  model->add("Nodes", QString::number(s.nodeCount));
  Item* inputs = model->add("Inputs", QString::number(s.inputs.size()));
  for (const ops::ValueSummary& v : s.inputs) inputs->add(qs(v.name), typeText(v.type));
  Item* outputs = model->add("Outputs", QString::number(s.outputs.size()));
  for (const ops::ValueSummary& v : s.outputs) outputs->add(qs(v.name), typeText(v.type));
  model->add("Parameters", qs(ops::formatCount(s.parameterCount)) + QString::fromUtf8(" \u00B7 ") +
                               qs(ops::formatBytes(s.parameterBytes)));
  model->add("FLOPs", qs(ops::formatFlops(s.flops)) +
                          (s.flopsUnknownNodes ? QString(" (%1 nodes not counted)").arg(s.flopsUnknownNodes) : QString()));
  Item* types = model->add("Op types", QString::number(s.opHistogram.size()));
  for (const auto& [type, count] : s.opHistogram) types->add(qs(type), QString::number(count));
  if (plan) {
    const sim::PlanFigures f = sim::figuresOf(*plan, predicted);
    Item* p = root_->add("Plan", qs(plan->policy) + " on " + qs(plan->device.id));
    p->add("Programs", QString::number(f.programs));
    p->add("rTasks", QString::number(f.rtasks));
    p->add("Barriers", QString::number(f.barriers));
    p->add("vEUs", QString::number(f.maxVEUs) + QString(" (%1-%2 per SM)").arg(f.minVEUsPerSM).arg(f.maxVEUsPerSM));
    p->add("DRAM traffic", qs(ops::formatBytes(static_cast<int64_t>(f.dramBytes))));
    if (predicted) {
      p->add("Predicted latency", QString::number(f.predictedUs, 'f', 1) + " us");
      p->add("SM efficiency", QString::number(100 * f.smEfficiency, 'f', 1) + " %");
    }
  }
  endResetModel();
}

void InspectorModel::clear() {
  beginResetModel();
  root_ = std::make_unique<Item>();
  node_ = ir::kNone;
  endResetModel();
}

QModelIndex InspectorModel::section(const QString& title) const {
  return child({}, title);
}

QModelIndex InspectorModel::child(const QModelIndex& parent, const QString& property) const {
  const Item* p = parent.isValid() ? static_cast<const Item*>(parent.internalPointer()) : root_.get();
  if (parent.isValid() && parent.model() != this) return {};
  for (const auto& c : p->children)
    if (c->property == property) return createIndex(c->row, PropertyColumn, c.get());
  return {};
}

QModelIndex InspectorModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || row < 0) return {};
  if (parent.isValid() && parent.column() != PropertyColumn) return {};
  const Item* p = parent.isValid() ? static_cast<const Item*>(parent.internalPointer()) : root_.get();
  if (row >= static_cast<int>(p->children.size())) return {};
  return createIndex(row, column, p->children[static_cast<size_t>(row)].get());
}

QModelIndex InspectorModel::parent(const QModelIndex& index) const {
  if (!index.isValid()) return {};
  const Item* item = static_cast<const Item*>(index.internalPointer());
  const Item* p = item->parent;
  if (!p || p == root_.get()) return {};
  return createIndex(p->row, PropertyColumn, const_cast<Item*>(p));
}

int InspectorModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(root_->children.size());
  // Only the first column has children (the tree's convention).
  if (parent.column() != PropertyColumn) return 0;
  return static_cast<int>(static_cast<const Item*>(parent.internalPointer())->children.size());
}

int InspectorModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant InspectorModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) return {};
  const Item* item = static_cast<const Item*>(index.internalPointer());
  if (index.column() == PropertyColumn) return item->property;
  if (index.column() == ValueColumn) return item->value;
  return {};
}

QVariant InspectorModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section == PropertyColumn) return QStringLiteral("Property");
  if (section == ValueColumn) return QStringLiteral("Value");
  return {};
}

}  // namespace rammer::viz
