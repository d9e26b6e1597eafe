#pragma once
// The Pipeline toolbar: Open, the policy picker with its Options popup
// (fusion modes and the policy's own options, policy_options_panel.h), the
// device and batch pickers, and Re-schedule, Compile & Run, Cancel. The pickers always show the
// session's settings (sync); a person's pick goes to the session (the
// policy through policyChosen, so the window can route it through the undo
// stack; a device JSON file through a file dialog; the batch re-imports).
#include <QList>
#include <QString>
#include <QToolBar>

class QAction;
class QComboBox;
class QSpinBox;
class QToolButton;

namespace rammer::viz {
class StudioSession;
}

namespace rammer::studio {

class PolicyOptionsPanel;

class PipelineToolBar : public QToolBar {
  Q_OBJECT

 public:
  // `open` comes first, `run` after the pickers.
  PipelineToolBar(viz::StudioSession* session, QAction* open, const QList<QAction*>& run, QWidget* parent);

  QComboBox* policyPicker() const { return policy_; }
  QComboBox* devicePicker() const { return device_; }
  PolicyOptionsPanel* policyOptions() const { return options_; }
  QToolButton* policyOptionsButton() const { return optionsButton_; }
  QSpinBox* batchPicker() const { return batch_; }

  // The pickers show the session's policy, device and batch.
  void sync();
  // Sets the batch picker without re-importing (the command line's --batch).
  void setBatch(int64_t batch);
  int batch() const;

 signals:
  void policyChosen(const QString& policy);

 private:
  void chooseDeviceFile();

  viz::StudioSession* session_;
  QComboBox* policy_ = nullptr;
  QComboBox* device_ = nullptr;
  PolicyOptionsPanel* options_ = nullptr;
  QToolButton* optionsButton_ = nullptr;
  QSpinBox* batch_ = nullptr;
  bool syncing_ = false;
};

}  // namespace rammer::studio
