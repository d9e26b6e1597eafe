#pragma once
// The rKernels dock's table: the candidate rKernels of one operator with
// what the policies estimate for each (PlanBuilder::estimate, the numbers
// the policies decide with), the "fastest" / "most efficient" flags as the
// plan records the policy's verdicts (PlannedOp::fastestOption,
// mostEfficientOption), and which one the plan chose.
//
// KernelChoiceCatalog fetches the candidates of every operator once per
// (graph, device) (kernelsFor over the graph); the model only shows rows.
// Qt Core only.
#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/diagnostic.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "core/schedule/plan_builder.h"

namespace rammer::viz {

struct KernelChoice {
  std::string name;
  int64_t rtasks = 0;
  int threads = 0;
  int64_t sharedBytes = 0;
  schedule::KernelEstimate estimate;
  // Smallest SM-time among the candidates over this one's: 1 for the most
  // efficient, lower for kernels that buy speed with idle SM time.
  double efficiency = 0;
  bool chosen = false;
  bool fastest = false;
  bool mostEfficient = false;
};

struct KernelChoices {
  int op = -1;             // Plan::ops index; -1: nothing selected
  std::string node;        // its node name
  std::string opType;
  std::string chosenRule;  // the plan's PlannedOp::kernelRule
  bool isView = false;     // views have no rKernels
  std::vector<KernelChoice> rows;
};

class KernelChoiceCatalog {
 public:
  // Fetches every operator's candidates (errors: the kernel library's).
  static ir::Result<KernelChoiceCatalog> build(const ir::Graph& graph, const device::DeviceSpec& device);

  // The candidates of `plan`'s op `op` (the plan must come from the same
  // graph; an op out of range gives an empty result).
  KernelChoices choicesFor(const schedule::Plan& plan, int op) const;
  const std::string& deviceId() const { return deviceId_; }

 private:
  explicit KernelChoiceCatalog(std::shared_ptr<const schedule::PlanBuilder> b, std::string deviceId)
      : builder_(std::move(b)), deviceId_(std::move(deviceId)) {}
  std::shared_ptr<const schedule::PlanBuilder> builder_;
  std::string deviceId_;
};

class KernelChoiceModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    NameColumn,
    RTasksColumn,
    ThreadsColumn,
    SharedColumn,
    VeusPerSmColumn,
    OpTimeColumn,    // predicted operator time alone, us
    SmTimeColumn,    // SM-us
    EfficiencyColumn,
    FlagsColumn,     // "chosen, fastest, most efficient"
    ColumnCount
  };
  enum Role {
    KernelNameRole = Qt::UserRole + 1,  // QString
    ValueRole,                          // raw number of a numeric cell
    ChosenRole,                         // bool
    FastestRole,
    MostEfficientRole,
  };

  explicit KernelChoiceModel(QObject* parent = nullptr);

  void setChoices(KernelChoices choices);
  void clear() { setChoices({}); }
  const KernelChoices& choices() const { return choices_; }
  const KernelChoice* at(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  KernelChoices choices_;
};

}  // namespace rammer::viz
