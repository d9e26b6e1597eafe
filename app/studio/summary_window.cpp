#include "app/studio/summary_window.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTreeWidget>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>

#include "core/onnx/importer.h"

namespace rammer::studio {

namespace {

LoadResult loadModel(const QString& path) {
  LoadResult r;
  r.path = path;
  QElapsedTimer timer;
  timer.start();
  try {
    auto graph = onnx_import::importModel(path.toStdString());
    if (graph)
      r.summary = ops::summarize(*graph);
    else
      r.error = QString::fromStdString(graph.errorText());
  } catch (const std::exception& e) {
    // The importer reports problems as diagnostics; this is a last guard so
    // a bug never takes the window down.
    r.error = QStringLiteral("internal error: %1").arg(QString::fromStdString(e.what()));
  }
  r.seconds = static_cast<double>(timer.elapsed()) / 1000.0;
  return r;
}

QString shapeText(const ops::ValueSummary& v) {
  if (!v.type.rankKnown) return QStringLiteral("[*]");
  QStringList dims;
  for (size_t i = 0; i < v.type.shape.size(); ++i) {
    const int64_t d = v.type.shape[i];
    const bool named = d < 0 && i < v.dimParams.size() && !v.dimParams[i].empty();
    dims << (d >= 0 ? QString::number(d) : named ? QString::fromStdString(v.dimParams[i]) : QStringLiteral("?"));
  }
  return QStringLiteral("%1 [%2]").arg(QString::fromUtf8(ir::dtypeName(v.type.dtype).data()), dims.join(", "));
}

QTreeWidgetItem* addRow(QTreeWidgetItem* parent, const QString& key, const QString& value) {
  auto* item = new QTreeWidgetItem(parent, {key, value});
  return item;
}

}  // namespace

SummaryWindow::SummaryWindow(bool quitAfterLoad, QWidget* parent)
    : QMainWindow(parent), quitAfterLoad_(quitAfterLoad) {
  setWindowTitle(QStringLiteral("Rammer Studio"));
  resize(720, 640);

  tree_ = new QTreeWidget(this);
  tree_->setColumnCount(2);
  tree_->setHeaderLabels({tr("Item"), tr("Value")});
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  setCentralWidget(tree_);

  QMenu* file = menuBar()->addMenu(tr("&File"));
  openAction_ = file->addAction(tr("&Open..."), this, &SummaryWindow::chooseModel);
  openAction_->setShortcut(QKeySequence::Open);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
  quit->setShortcut(QKeySequence::Quit);

  connect(&watcher_, &QFutureWatcher<LoadResult>::finished, this, &SummaryWindow::loadFinished);
  statusBar()->showMessage(tr("Open an ONNX model (Ctrl+O)"));
}

void SummaryWindow::chooseModel() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open model"), QString(), tr("ONNX models (*.onnx);;All files (*)"));
  if (!path.isEmpty()) openModel(path);
}

void SummaryWindow::openModel(const QString& path) {
  if (watcher_.isRunning()) return;  // one import at a time; Open is disabled meanwhile
  openAction_->setEnabled(false);
  statusBar()->showMessage(tr("Importing %1...").arg(QFileInfo(path).fileName()));
  watcher_.setFuture(QtConcurrent::run(loadModel, path));
}

void SummaryWindow::loadFinished() {
  const LoadResult r = watcher_.result();
  openAction_->setEnabled(true);
  if (!r.summary) {
    statusBar()->showMessage(tr("Import failed"));
    if (quitAfterLoad_) {
      std::fprintf(stderr, "rammer-studio: error: %s\n", qPrintable(r.error));
      QApplication::exit(1);
      return;
    }
    QMessageBox::critical(this, tr("Cannot open model"), r.error);
    return;
  }
  showSummary(r.path, *r.summary);
  statusBar()->showMessage(tr("Imported %1 in %2 s").arg(QFileInfo(r.path).fileName()).arg(r.seconds, 0, 'f', 2));
  if (quitAfterLoad_) {
    std::printf("loaded %s: %zu nodes, %s\n", qPrintable(r.path), r.summary->nodeCount,
                ops::formatFlops(r.summary->flops).c_str());
    QApplication::exit(0);
  }
}

void SummaryWindow::showSummary(const QString& path, const ops::ModelSummary& s) {
  setWindowTitle(QStringLiteral("%1 - Rammer Studio").arg(QFileInfo(path).fileName()));
  tree_->clear();
  auto* model = new QTreeWidgetItem(tree_, {tr("Model"), path});
  addRow(model, tr("Graph"), QString::fromStdString(s.name));
  addRow(model, tr("Opset"), QString::number(s.opset));
  addRow(model, tr("Nodes"), QString::number(static_cast<qulonglong>(s.nodeCount)));
  addRow(model, tr("Parameters"), QStringLiteral("%1 (%2)").arg(QString::fromStdString(ops::formatCount(s.parameterCount)),
                                                               QString::fromStdString(ops::formatBytes(s.parameterBytes))));
  QString flops = QString::fromStdString(ops::formatFlops(s.flops));
  if (s.flopsUnknownNodes > 0) flops += tr(" (%1 nodes not counted)").arg(s.flopsUnknownNodes);
  addRow(model, tr("FLOPs"), flops);

  auto addValues = [this](const QString& title, const std::vector<ops::ValueSummary>& values) {
    auto* group = new QTreeWidgetItem(tree_, {title, QString::number(values.size())});
    for (const auto& v : values) addRow(group, QString::fromStdString(v.name), shapeText(v));
  };
  addValues(tr("Inputs"), s.inputs);
  addValues(tr("Outputs"), s.outputs);

  auto addCounts = [this](const QString& title, const std::vector<std::pair<std::string, int64_t>>& counts) {
    auto* group = new QTreeWidgetItem(tree_, {title, QString::number(counts.size())});
    for (const auto& [name, n] : counts) addRow(group, QString::fromStdString(name), QString::number(n));
  };
  addCounts(tr("Operators"), s.opHistogram);
  addCounts(tr("Categories"), s.categoryCounts);
  tree_->expandAll();
}

}  // namespace rammer::studio
