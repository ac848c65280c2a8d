// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QThreadPool>
#include <functional>
#include <vector>

#include "core/cluster/doc_copies.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace railyard::ui {

// Node > Find document: give a document id, and every watched node is asked where it holds it
// (admin.Locate through cluster::LocateEverywhere, on a worker thread): the updater's and each
// replica's entry, size, checksum and queue position, which index and Bloom page answered, and
// each copy's verdict (newest, behind, DIFFERS, unknown) from cluster::CompareCopies, as
// `railyardctl get --all-nodes` prints them.
//
// Thread safety: GUI thread only; the worker touches only its own copies. The destructor waits
// for a lookup still running (bounded by the per-node timeout).
class FindDocumentDialog : public QDialog {
  Q_OBJECT
 public:
  using TargetProvider = std::function<std::vector<cluster::CopyTarget>()>;
  FindDocumentDialog(TargetProvider targets, QWidget* parent = nullptr);
  ~FindDocumentDialog() override;

  // Sets the id field and asks (what the Find button does).
  void Find(const QString& id_text);
  bool Busy() const { return busy_; }
  // The table's columns.
  enum Column {
    kNode,
    kRole,
    kVerdict,
    kEntry,
    kSize,
    kChecksum,
    kPosition,
    kApplied,
    kAnsweredBy,
    kColumnCount
  };

 Q_SIGNALS:
  // A lookup's answers are in the table.
  void Found();

 private:
  void Show(uint64_t id, const std::vector<cluster::NodeCopy>& copies);

  const TargetProvider targets_;
  QLineEdit* id_;
  QPushButton* find_;
  QLabel* summary_;
  QTableWidget* table_;
  bool busy_ = false;
  QThreadPool pool_;  // Last: destroyed (and waited for) first.
};

}  // namespace railyard::ui
