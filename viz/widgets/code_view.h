#pragma once
// The Code dock: the generated CUDA or HIP translation unit of the current
// plan (the pipeline's Generate stage, run on a worker thread), syntax
// highlighted, with jumps from an operator to its rKernel function and
// from a program to its __global__ kernel (CodeIndex). A jump asked for
// while the code is being generated lands when it is ready.
#include <QWidget>
#include <memory>
#include <optional>

#include "core/codegen/generated_program.h"
#include "core/ir/graph.h"
#include "core/schedule/plan.h"
#include "viz/models/code_locator.h"
#include "viz/models/pipeline_job.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QSpinBox;

namespace rammer::viz {

class CudaHighlighter;

class CodeView : public QWidget {
  Q_OBJECT

 public:
  explicit CodeView(QWidget* parent = nullptr);
  ~CodeView() override;

  // Regenerates for this plan (nullptr clears).
  void setPlan(std::shared_ptr<const schedule::Plan> plan, std::shared_ptr<const ir::Graph> graph);
  void setTarget(codegen::Target target);
  codegen::Target target() const { return target_; }

  // Selects and scrolls to the code; false when there is none (a view op,
  // out of range) or, while generating, true once the jump is queued.
  bool jumpToOp(int op);
  bool jumpToProgram(int program);

  bool isGenerating() const { return generating_; }
  QString source() const;
  const CodeIndex& index() const { return index_; }
  // The selected line range (0-based, inclusive) after the last jump.
  LineRange selectedLines() const { return selected_; }
  QPlainTextEdit* editor() const { return editor_; }
  CudaHighlighter* highlighter() const { return highlighter_; }
  QString statusText() const;

 signals:
  // The code for the latest plan/target is shown (or failed: ok false).
  void generated(bool ok);

 private:
  struct Generated {
    QString source;
    CodeIndex index;
    QString error;
    int functions = 0;
    int launches = 0;
  };
  struct Jump {
    bool program;
    int index;
  };
  void regenerate();
  void onGenerated(Generated& g);
  bool jump(const Jump& j);

  QComboBox* targetBox_ = nullptr;
  QSpinBox* programBox_ = nullptr;
  QLabel* status_ = nullptr;
  QPlainTextEdit* editor_ = nullptr;
  CudaHighlighter* highlighter_ = nullptr;

  std::shared_ptr<const schedule::Plan> plan_;
  std::shared_ptr<const ir::Graph> graph_;
  codegen::Target target_ = codegen::Target::Cuda;
  PipelineJob* job_ = nullptr;  // a newer request supersedes the running one
  bool generating_ = false;
  CodeIndex index_;
  LineRange selected_;
  std::optional<Jump> pendingJump_;
};

}  // namespace rammer::viz
