#include "viz/widgets/code_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTextBlock>
#include <QVBoxLayout>

#include "core/pipeline/pipeline.h"
#include "viz/widgets/cuda_highlighter.h"

namespace rammer::viz {

CodeView::CodeView(QWidget* parent) : QWidget(parent) {
  targetBox_ = new QComboBox(this);
  targetBox_->addItem(QStringLiteral("CUDA"));
  targetBox_->addItem(QStringLiteral("HIP"));
  targetBox_->setToolTip(tr("Generate CUDA or HIP"));
  programBox_ = new QSpinBox(this);
  programBox_->setPrefix(tr("program "));
  programBox_->setToolTip(tr("Jump to a program's kernel"));
  programBox_->setEnabled(false);
  status_ = new QLabel(tr("No plan yet."), this);
  editor_ = new QPlainTextEdit(this);
  editor_->setReadOnly(true);
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  highlighter_ = new CudaHighlighter(editor_->document());

  auto* bar = new QHBoxLayout;
  bar->addWidget(targetBox_);
  bar->addWidget(programBox_);
  bar->addWidget(status_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(editor_, 1);

  connect(targetBox_, &QComboBox::currentIndexChanged, this,
          [this](int i) { setTarget(i == 1 ? codegen::Target::Hip : codegen::Target::Cuda); });
  connect(programBox_, &QSpinBox::valueChanged, this, [this](int p) { jumpToProgram(p); });
  job_ = new PipelineJob(this);
}

CodeView::~CodeView() = default;  // job_ joins its worker

void CodeView::setPlan(std::shared_ptr<const schedule::Plan> plan, std::shared_ptr<const ir::Graph> graph) {
  plan_ = std::move(plan);
  graph_ = std::move(graph);
  regenerate();
}

void CodeView::setTarget(codegen::Target target) {
  if (target == target_) return;
  target_ = target;
  const QSignalBlocker block(targetBox_);
  targetBox_->setCurrentIndex(target == codegen::Target::Hip ? 1 : 0);
  regenerate();
}

void CodeView::regenerate() {
  index_ = {};
  selected_ = {};
  if (!plan_ || !graph_) {
    job_->cancel();  // a running job's code is for the plan that went
    generating_ = false;
    editor_->clear();
    status_->setText(tr("No plan yet."));
    programBox_->setEnabled(false);
    return;
  }
  generating_ = true;
  status_->setText(tr("Generating %1…").arg(target_ == codegen::Target::Hip ? "HIP" : "CUDA"));
  std::function<Generated(const pipeline::Control&)> work = [plan = plan_, graph = graph_,
                                                             target = target_](const pipeline::Control&) {
    Generated g;
    pipeline::Options options;
    options.generate.target = target;
    pipeline::Artifacts given;
    given.optimized = graph;
    given.plan = plan;
    pipeline::StagesResult r = pipeline::runStages(options, std::move(given), pipeline::Stage::Generate,
                                                   pipeline::Stage::Generate);
    if (!r.report.ok()) {
      g.error = QString::fromStdString(ir::formatDiagnostics(r.report.errors()));
      return g;
    }
    const codegen::GeneratedProgram& program = *r.artifacts.generated;
    g.source = QString::fromStdString(program.source);
    g.functions = static_cast<int>(program.numFunctions);
    g.launches = static_cast<int>(program.launches.size());
    auto index = indexGeneratedCode(program, *plan, *graph);
    if (index) g.index = std::move(index).value();
    return g;
  };
  job_->start<Generated>(tr("Generating code"), std::move(work), [this](Generated& g) { onGenerated(g); });
}

void CodeView::onGenerated(Generated& g) {
  generating_ = false;
  const bool ok = g.error.isEmpty();
  index_ = std::move(g.index);
  if (ok) {
    editor_->setPlainText(g.source);
    status_->setText(tr("%1: %2 lines, %3 rKernel function(s), %4 launch(es)")
                         .arg(target_ == codegen::Target::Hip ? "HIP" : "CUDA")
                         .arg(editor_->document()->blockCount())
                         .arg(g.functions)
                         .arg(g.launches));
  } else {
    editor_->setPlainText(g.error);
    status_->setText(tr("Code generation failed"));
  }
  {
    const QSignalBlocker block(programBox_);
    programBox_->setRange(0, std::max(0, static_cast<int>(index_.programs.size()) - 1));
    programBox_->setEnabled(!index_.programs.empty());
  }
  if (pendingJump_) {
    const Jump j = *pendingJump_;
    pendingJump_.reset();
    jump(j);
  }
  emit generated(ok);
}

bool CodeView::jumpToOp(int op) { return jump({false, op}); }
bool CodeView::jumpToProgram(int program) { return jump({true, program}); }

bool CodeView::jump(const Jump& j) {
  if (generating_) {
    pendingJump_ = j;
    return true;
  }
  const auto& ranges = j.program ? index_.programs : index_.ops;
  if (j.index < 0 || static_cast<size_t>(j.index) >= ranges.size() || !ranges[static_cast<size_t>(j.index)].valid())
    return false;
  const LineRange r = ranges[static_cast<size_t>(j.index)];
  QTextDocument* doc = editor_->document();
  const QTextBlock first = doc->findBlockByNumber(r.first);
  const QTextBlock last = doc->findBlockByNumber(r.last);
  if (!first.isValid() || !last.isValid()) return false;
  // Scroll so the range's end, then its start, is visible: the start ends up on screen.
  QTextCursor c(last);
  c.movePosition(QTextCursor::EndOfBlock);
  editor_->setTextCursor(c);
  editor_->ensureCursorVisible();
  c.setPosition(first.position(), QTextCursor::MoveAnchor);
  c.setPosition(last.position() + last.length() - 1, QTextCursor::KeepAnchor);
  QTextCursor top(first);
  editor_->setTextCursor(top);
  editor_->ensureCursorVisible();
  editor_->setTextCursor(c);
  selected_ = r;
  if (j.program) {
    const QSignalBlocker block(programBox_);
    programBox_->setValue(j.index);
  }
  return true;
}

QString CodeView::source() const { return editor_->toPlainText(); }
QString CodeView::statusText() const { return status_->text(); }

}  // namespace rammer::viz
