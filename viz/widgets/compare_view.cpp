#include "viz/widgets/compare_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "core/schedule/policy.h"
#include "viz/widgets/timeline_view.h"

namespace rammer::viz {

namespace {

QString firstError(const PlanSummary& s) {
  for (const auto& d : s.diagnostics)
    if (d.diagnostic.severity == ir::Severity::Error) return QString::fromStdString(ir::formatDiagnostic(d.diagnostic));
  return QObject::tr("failed");
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  policyA_ = new QComboBox(this);
  policyB_ = new QComboBox(this);
  for (const auto& name : schedule::policyNames()) {
    policyA_->addItem(QString::fromStdString(name));
    policyB_->addItem(QString::fromStdString(name));
  }
  policyA_->setCurrentText(QStringLiteral("sequential"));
  policyB_->setCurrentText(QStringLiteral("wavefront"));
  run_ = new QPushButton(tr("Compare"), this);
  status_ = new QLabel(tr("No model."), this);

  table_ = new QTableWidget(RowCount, 3, this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setVerticalHeaderLabels({tr("predicted latency (us)"), tr("SM efficiency"), tr("programs"),
                                   tr("vEUs (widest program)"), tr("barriers"), tr("rTasks")});
  table_->setHorizontalHeaderLabels({tr("A"), tr("B"), tr("A / B")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);

  timelineA_ = new TimelineView(this);
  timelineB_ = new TimelineView(this);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("A:"), this));
  bar->addWidget(policyA_);
  bar->addWidget(new QLabel(tr("B:"), this));
  bar->addWidget(policyB_);
  bar->addWidget(run_);
  bar->addWidget(status_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(timelineA_);
  split->addWidget(timelineB_);
  split->setStretchFactor(1, 1);
  split->setStretchFactor(2, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this, [this] { compare(); });
  connect(&watcher_, &QFutureWatcher<PlanComparison>::finished, this, &CompareView::onFinished);
  // One time axis: panning or zooming either timeline moves the other.
  connect(timelineA_, &TimelineView::visibleRangeChanged, this,
          [this](double t0, double t1) { syncRange(timelineA_, t0, t1); });
  connect(timelineB_, &TimelineView::visibleRangeChanged, this,
          [this](double t0, double t1) { syncRange(timelineB_, t0, t1); });
}

CompareView::~CompareView() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

void CompareView::setModel(std::shared_ptr<const ir::Graph> graph, const QString& device) {
  graph_ = std::move(graph);
  device_ = device;
  status_->setText(graph_ ? tr("Ready: compare two policies on %1.").arg(device_) : tr("No model."));
}

bool CompareView::compare() { return compare(policyA_->currentText(), policyB_->currentText()); }

bool CompareView::compare(const QString& policyA, const QString& policyB) {
  if (!graph_) return false;
  policyA_->setCurrentText(policyA);
  policyB_->setCurrentText(policyB);
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();  // the policies do not poll: at most one schedule's wait
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  busy_ = true;
  run_->setEnabled(false);
  status_->setText(tr("Scheduling and simulating %1 and %2…").arg(policyA, policyB));
  watcher_.setFuture(QtConcurrent::run(
      [graph = graph_, device = device_.toStdString(), a = policyA.toStdString(), b = policyB.toStdString(),
       cancel = cancel_]() {
        JobControl control;
        control.cancel = cancel.get();
        return comparePolicies(graph, device, a, b, control);
      }));
  return true;
}

void CompareView::onFinished() {
  busy_ = false;
  run_->setEnabled(true);
  if (cancel_ && cancel_->load()) return;
  result_ = watcher_.result();
  showResult();
  emit compared(result_->a.ok && result_->b.ok);
}

void CompareView::showResult() {
  const PlanComparison& c = *result_;
  table_->setHorizontalHeaderLabels({tr("A: %1").arg(QString::fromStdString(c.a.policy)),
                                     tr("B: %1").arg(QString::fromStdString(c.b.policy)), tr("A / B")});
  auto cell = [this](int row, int col, const QString& text) { table_->setItem(row, col, new QTableWidgetItem(text)); };
  auto ratio = [](double a, double b) { return b != 0 ? QString::number(a / b, 'f', 2) : QStringLiteral("–"); };
  const PlanSummary* s[2] = {&c.a, &c.b};
  for (int col = 0; col < 2; ++col) {
    const PlanSummary& p = *s[col];
    if (!p.ok) {
      for (int row = 0; row < RowCount; ++row) cell(row, col, row == 0 ? firstError(p) : QString());
      continue;
    }
    cell(LatencyRow, col, QString::number(p.latencyUs, 'f', 1));
    cell(SmEfficiencyRow, col, QString::number(100 * p.smEfficiency, 'f', 1) + QLatin1Char('%'));
    cell(ProgramsRow, col, QString::number(p.programs));
    cell(VeusRow, col, QString::number(p.maxVEUs));
    cell(BarriersRow, col, QString::number(p.barriers));
    cell(RTasksRow, col, QString::number(p.rtasks));
  }
  const bool both = c.a.ok && c.b.ok;
  cell(LatencyRow, 2, both ? QString::number(c.ratio(), 'f', 2) : QString());
  cell(SmEfficiencyRow, 2, both ? ratio(c.a.smEfficiency, c.b.smEfficiency) : QString());
  cell(ProgramsRow, 2, both ? ratio(double(c.a.programs), double(c.b.programs)) : QString());
  cell(VeusRow, 2, both ? ratio(c.a.maxVEUs, c.b.maxVEUs) : QString());
  cell(BarriersRow, 2, both ? ratio(double(c.a.barriers), double(c.b.barriers)) : QString());
  cell(RTasksRow, 2, both ? ratio(double(c.a.rtasks), double(c.b.rtasks)) : QString());

  timelineA_->setTrace(c.a.trace);
  timelineB_->setTrace(c.b.trace);
  if (both) {
    const double end = std::max(c.a.latencyUs, c.b.latencyUs);
    timelineA_->setVisibleRange(0, end);
    timelineB_->setVisibleRange(0, end);
    status_->setText(tr("%1: %2 us, %3: %4 us; %1 / %3 = %5")
                         .arg(QString::fromStdString(c.a.policy))
                         .arg(c.a.latencyUs, 0, 'f', 1)
                         .arg(QString::fromStdString(c.b.policy))
                         .arg(c.b.latencyUs, 0, 'f', 1)
                         .arg(c.ratio(), 0, 'f', 2));
  } else {
    status_->setText(tr("A plan failed: %1").arg(!c.a.ok ? firstError(c.a) : firstError(c.b)));
  }
}

void CompareView::syncRange(TimelineView* from, double t0, double t1) {
  if (syncing_) return;
  syncing_ = true;
  (from == timelineA_ ? timelineB_ : timelineA_)->setVisibleRange(t0, t1);
  syncing_ = false;
}

QString CompareView::statusText() const { return status_->text(); }

}  // namespace rammer::viz
