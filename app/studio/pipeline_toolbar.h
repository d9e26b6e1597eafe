#pragma once
// The Pipeline toolbar: Open, the policy / IOS variant / device / batch
// pickers, and Re-schedule, Compile & Run, Cancel. The pickers always show the
// session's settings (sync); a person's pick goes to the session (the
// policy through policyChosen, so the window can route it through the undo
// stack; a device JSON file through a file dialog; the batch re-imports).
#include <QList>
#include <QString>
#include <QToolBar>

class QAction;
class QComboBox;
class QSpinBox;

namespace rammer::viz {
class StudioSession;
}

namespace rammer::studio {

class PipelineToolBar : public QToolBar {
  Q_OBJECT

 public:
  // `open` comes first, `run` after the pickers.
  PipelineToolBar(viz::StudioSession* session, QAction* open, const QList<QAction*>& run, QWidget* parent);

  QComboBox* policyPicker() const { return policy_; }
  QComboBox* devicePicker() const { return device_; }
  QComboBox* iosVariantPicker() const { return iosVariant_; }  // enabled with the ios policy
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
  QComboBox* iosVariant_ = nullptr;
  QSpinBox* batch_ = nullptr;
  bool syncing_ = false;
};

}  // namespace rammer::studio
