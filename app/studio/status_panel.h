#pragma once
// The status bar's widgets: what is going on (or the last result), a
// progress bar and Cancel while a job runs, and on the right what this
// machine can do ("GPU: ... — CUPTI counters available" or "simulated: no
// GPU (...)"), with the full explanation in its tooltip.
#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace rammer::viz {
struct CapabilityReport;
}

namespace rammer::studio {

class StatusPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StatusPanel(QWidget* parent = nullptr);

  void setBusy(bool busy, const QString& what = {});
  void setProgress(const QString& what, int percent);
  void setMessage(const QString& text);
  void setCapability(const viz::CapabilityReport& report);

  QString message() const;
  QString capabilityText() const;
  QProgressBar* progressBar() const { return progress_; }
  QToolButton* cancelButton() const { return cancel_; }

 signals:
  void cancelRequested();

 private:
  QLabel* message_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QToolButton* cancel_ = nullptr;
  QLabel* capability_ = nullptr;
};

}  // namespace rammer::studio
