#pragma once
// The plan choices beyond policy, device and batch, in one labelled place:
// attention and epilogue fusion (every policy), and the current policy's
// own options only (IOS: operators per group, groups per stage, stage
// kinds, programs; GraphTurbo: instance order, fast-memory budget). The
// same choices as the CLI's --fuse-*, --ios-* and --gt-* options, set
// through the same pipeline::PlanChoices (StudioSession::setPolicyOptions).
// The Pipeline toolbar shows it under its "Options" button.
#include <QWidget>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QSpinBox;

namespace rammer::viz {
class StudioSession;
}

namespace rammer::studio {

class PolicyOptionsPanel : public QWidget {
  Q_OBJECT

 public:
  PolicyOptionsPanel(viz::StudioSession* session, QWidget* parent = nullptr);

  // Shows the session's choices, and only the current policy's group.
  void sync();

  QGroupBox* iosGroup() const { return ios_; }
  QGroupBox* graphTurboGroup() const { return graphTurbo_; }

 private:
  void apply();  // the widgets' values to the session

  viz::StudioSession* session_;
  QComboBox* attention_ = nullptr;
  QComboBox* epilogues_ = nullptr;
  QCheckBox* keepPersistent_ = nullptr;
  QCheckBox* reloadWeights_ = nullptr;
  QGroupBox* ios_ = nullptr;
  QSpinBox* iosR_ = nullptr;
  QSpinBox* iosS_ = nullptr;
  QComboBox* iosVariant_ = nullptr;
  QComboBox* iosPrograms_ = nullptr;
  QGroupBox* graphTurbo_ = nullptr;
  QComboBox* gtOrder_ = nullptr;
  QSpinBox* gtBudget_ = nullptr;
  QLabel* none_ = nullptr;  // "<policy> has no options of its own"
  bool syncing_ = false;
};

}  // namespace rammer::studio
