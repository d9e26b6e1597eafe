#include "viz/models/kernel_choice_model.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>

#include "viz/models/studio_pipeline.h"

namespace rammer::viz {

ir::Result<KernelChoiceCatalog> KernelChoiceCatalog::build(const ir::Graph& graph, const device::DeviceSpec& device) {
  // A builder with no constraints: the candidates and estimates the
  // studio's policies start from.
  auto b = schedule::PlanBuilder::start("inspect", graph, device, {}, sim::policyOptions(studioCostModel()));
  if (!b) return b.errors();
  return KernelChoiceCatalog(std::make_shared<const schedule::PlanBuilder>(std::move(b).value()), device.id);
}

KernelChoices KernelChoiceCatalog::choicesFor(const schedule::Plan& plan, int op) const {
  KernelChoices out;
  if (op < 0 || static_cast<size_t>(op) >= plan.ops.size() || static_cast<size_t>(op) >= builder_->dag().ops.size())
    return out;
  const schedule::PlannedOp& p = plan.ops[static_cast<size_t>(op)];
  out.op = op;
  out.node = p.name;
  out.opType = p.opType;
  out.chosenRule = p.kernelRule;
  out.isView = p.isView;
  if (builder_->opName(op) != p.name) return out;  // a plan of another graph
  const auto& cs = builder_->candidates(op);
  if (cs.empty()) return out;
  double bestSm = std::numeric_limits<double>::infinity();
  for (const auto& k : cs) {
    KernelChoice c;
    c.name = k.name;
    c.rtasks = k.numRTasks;
    c.threads = k.threads();
    c.sharedBytes = k.sharedBytes;
    c.estimate = builder_->estimate(k);
    c.chosen = !p.isView && k.name == p.kernel.name;
    bestSm = std::min(bestSm, c.estimate.smUs);
    out.rows.push_back(std::move(c));
  }
  for (auto& c : out.rows)
    c.efficiency = std::isfinite(c.estimate.smUs) && c.estimate.smUs > 0 ? bestSm / c.estimate.smUs : 0;
  // The policy's own verdicts, as the plan records them.
  const auto flag = [&out](int index, bool KernelChoice::*field) {
    if (index >= 0 && static_cast<size_t>(index) < out.rows.size()) out.rows[static_cast<size_t>(index)].*field = true;
  };
  if (p.options.size() == out.rows.size()) {
    flag(p.fastestOption, &KernelChoice::fastest);
    flag(p.mostEfficientOption, &KernelChoice::mostEfficient);
  }
  return out;
}

KernelChoiceModel::KernelChoiceModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelChoiceModel::setChoices(KernelChoices choices) {
  beginResetModel();
  choices_ = std::move(choices);
  endResetModel();
}

const KernelChoice* KernelChoiceModel::at(int row) const {
  if (row < 0 || static_cast<size_t>(row) >= choices_.rows.size()) return nullptr;
  return &choices_.rows[static_cast<size_t>(row)];
}

int KernelChoiceModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(choices_.rows.size());
}

int KernelChoiceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

QString flagsText(const KernelChoice& c) {
  QStringList f;
  if (c.chosen) f << QStringLiteral("chosen");
  if (c.fastest) f << QStringLiteral("fastest");
  if (c.mostEfficient) f << QStringLiteral("most efficient");
  return f.join(QStringLiteral(", "));
}

QString us(double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("does not fit"); }

}  // namespace

QVariant KernelChoiceModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const KernelChoice& c = choices_.rows[static_cast<size_t>(index.row())];
  switch (role) {
    case KernelNameRole: return QString::fromStdString(c.name);
    case ChosenRole: return c.chosen;
    case FastestRole: return c.fastest;
    case MostEfficientRole: return c.mostEfficient;
    case Qt::TextAlignmentRole:
      return index.column() == NameColumn || index.column() == FlagsColumn
                 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                 : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
      return QStringLiteral("%1: %2 rTasks of %3 threads, %4 B shared; one rTask %5 us; %6 vEUs")
          .arg(QString::fromStdString(c.name))
          .arg(c.rtasks)
          .arg(c.threads)
          .arg(c.sharedBytes)
          .arg(us(c.estimate.taskUs))
          .arg(c.estimate.numVEUs);
    case ValueRole:
    case Qt::DisplayRole: {
      const bool raw = role == ValueRole;
      switch (index.column()) {
        case NameColumn: return raw ? QVariant() : QVariant(QString::fromStdString(c.name));
        case RTasksColumn: return QVariant::fromValue<qlonglong>(c.rtasks);
        case ThreadsColumn: return c.threads;
        case SharedColumn: return QVariant::fromValue<qlonglong>(c.sharedBytes);
        case VeusPerSmColumn: return c.estimate.veusPerSM;
        case OpTimeColumn: return raw ? QVariant(c.estimate.opUs) : QVariant(us(c.estimate.opUs));
        case SmTimeColumn: return raw ? QVariant(c.estimate.smUs) : QVariant(us(c.estimate.smUs));
        case EfficiencyColumn:
          return raw ? QVariant(c.efficiency) : QVariant(QString::number(100 * c.efficiency, 'f', 1) + QLatin1Char('%'));
        case FlagsColumn: return raw ? QVariant() : QVariant(flagsText(c));
        default: return {};
      }
    }
    default: return {};
  }
}

QVariant KernelChoiceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  if (role == Qt::ToolTipRole && section == EfficiencyColumn)
    return tr("Smallest SM-time among the candidates over this rKernel's (100%: the most efficient)");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn: return tr("rKernel");
    case RTasksColumn: return tr("rTasks");
    case ThreadsColumn: return tr("threads");
    case SharedColumn: return tr("shared B");
    case VeusPerSmColumn: return tr("vEUs/SM");
    case OpTimeColumn: return tr("op time (us)");
    case SmTimeColumn: return tr("SM-time (SM-us)");
    case EfficiencyColumn: return tr("efficiency");
    case FlagsColumn: return tr("flags");
    default: return {};
  }
}

}  // namespace rammer::viz
