#pragma once
// The rKernels dock: the selected operator's candidate rKernels
// (KernelChoiceModel) with the policies' estimates and flags. Double-click
// a row, or "Pin", to pin that rKernel; "Policy's choice" removes the pin.
// The view only asks (pinRequested / unpinRequested); the editor makes the
// undoable edit.
#include <QString>
#include <QWidget>

#include "viz/models/kernel_choice_model.h"

class QLabel;
class QPushButton;
class QTableView;

namespace rammer::viz {

class KernelsView : public QWidget {
  Q_OBJECT

 public:
  explicit KernelsView(QWidget* parent = nullptr);

  void setChoices(KernelChoices choices);
  // Shown instead of the table (no selection, a view op, an error).
  void setMessage(const QString& text);
  KernelChoiceModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QString headerText() const;
  // Pins the rKernel of `row` (as double-click does).
  void pinRow(int row);

 signals:
  void pinRequested(const QString& node, const QString& kernel);
  void unpinRequested(const QString& node);

 private:
  void updateButtons();

  KernelChoiceModel* model_;
  QLabel* header_ = nullptr;
  QTableView* table_ = nullptr;
  QPushButton* pin_ = nullptr;
  QPushButton* unpin_ = nullptr;
};

}  // namespace rammer::viz
