// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/find_document_dialog.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QTableWidget>
#include <QVBoxLayout>
#include <chrono>

#include "core/cluster/replication_names.h"
#include "ui/support/gui_thread.h"

namespace railyard::ui {

namespace {

// Per node, to connect and answer: an unreachable node must not hold the answer up for long.
constexpr std::chrono::milliseconds kPerNodeTimeout{3000};

QString Text(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QTableWidgetItem* Cell(const QString& text, Qt::Alignment align = Qt::AlignLeft) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(align | Qt::AlignVCenter);
  return item;
}

}  // namespace

FindDocumentDialog::FindDocumentDialog(TargetProvider targets, QWidget* parent)
    : QDialog(parent), targets_(std::move(targets)) {
  setWindowTitle(tr("Find document"));
  id_ = new QLineEdit(this);
  id_->setPlaceholderText(tr("Document id (0 to 18446744073709551615)"));
  id_->setValidator(new QRegularExpressionValidator(QRegularExpression("[0-9]{1,20}"), id_));
  id_->setAccessibleName(tr("Document id"));
  find_ = new QPushButton(tr("&Find"), this);
  find_->setDefault(true);
  summary_ = new QLabel(tr("Give a document id: every node is asked where it holds it."), this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = new QTableWidget(0, kColumnCount, this);
  table_->setHorizontalHeaderLabels({tr("Node"), tr("Role"), tr("Verdict"), tr("Entry"), tr("Size"),
                                     tr("Checksum (XXH3)"), tr("Position"), tr("Applied"),
                                     tr("Answered by")});
  table_->horizontalHeaderItem(kVerdict)->setToolTip(
      tr("newest: holds the newest entry of any node; behind: has not applied that entry's "
         "queue position; DIFFERS: applied it yet holds another entry (a fault); unknown: could "
         "not be asked; no store: a process without a docstore (a load client)"));
  table_->horizontalHeaderItem(kPosition)->setToolTip(
      tr("The queue position a node must have applied to hold this entry"));
  table_->horizontalHeaderItem(kApplied)->setToolTip(
      tr("Everything before this queue position is applied on the node"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);

  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Document id:"), this));
  row->addWidget(id_, 1);
  row->addWidget(find_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(row);
  layout->addWidget(summary_);
  layout->addWidget(table_, 1);
  resize(980, 320);

  connect(find_, &QPushButton::clicked, this, [this] { Find(id_->text()); });
  connect(id_, &QLineEdit::returnPressed, this, [this] { Find(id_->text()); });
  pool_.setMaxThreadCount(1);
}

FindDocumentDialog::~FindDocumentDialog() { pool_.waitForDone(); }

void FindDocumentDialog::Find(const QString& id_text) {
  if (busy_) return;
  id_->setText(id_text);
  bool ok = false;
  const uint64_t id = id_text.trimmed().toULongLong(&ok);
  if (!ok) {
    summary_->setText(tr("Not a document id: \"%1\" (ids are whole numbers from 0 to "
                         "18446744073709551615).")
                          .arg(id_text));
    return;
  }
  std::vector<cluster::CopyTarget> targets = targets_();
  if (targets.empty()) {
    summary_->setText(
        tr("No live nodes to ask: connect to a cluster first (a recording holds "
           "no documents)."));
    table_->setRowCount(0);
    return;
  }
  busy_ = true;
  find_->setEnabled(false);
  summary_->setText(
      tr("Asking %n node(s) where document %1 is...", nullptr, static_cast<int>(targets.size()))
          .arg(id));
  pool_.start([this, id, targets = std::move(targets)] {
    std::vector<cluster::NodeCopy> copies = cluster::LocateEverywhere(targets, id, kPerNodeTimeout);
    RunOnReceiverThread(this, [this, id, copies = std::move(copies)] {
      busy_ = false;
      find_->setEnabled(true);
      Show(id, copies);
      Q_EMIT Found();
    });
  });
}

void FindDocumentDialog::Show(uint64_t id, const std::vector<cluster::NodeCopy>& copies) {
  const cluster::CopyComparison comparison = cluster::CompareCopies(copies);
  int newest = 0, behind = 0, differ = 0, unknown = 0, no_store = 0;
  table_->setRowCount(static_cast<int>(copies.size()));
  for (int row = 0; row < static_cast<int>(copies.size()); ++row) {
    const cluster::NodeCopy& c = copies[row];
    const cluster::CopyVerdict verdict = comparison.verdicts[row];
    newest += verdict == cluster::CopyVerdict::kNewest;
    behind += verdict == cluster::CopyVerdict::kBehind;
    differ += verdict == cluster::CopyVerdict::kDiffers;
    unknown += verdict == cluster::CopyVerdict::kUnknown;
    no_store += verdict == cluster::CopyVerdict::kNoStore;
    table_->setItem(row, kNode, Cell(QString::fromStdString(c.node)));
    QTableWidgetItem* verdict_cell = Cell(Text(cluster::CopyVerdictName(verdict)));
    if (verdict == cluster::CopyVerdict::kBehind)
      verdict_cell->setForeground(QColor(0xb3, 0x6b, 0));
    if (verdict == cluster::CopyVerdict::kDiffers) verdict_cell->setForeground(Qt::red);
    if (verdict == cluster::CopyVerdict::kUnknown || verdict == cluster::CopyVerdict::kNoStore) {
      verdict_cell->setForeground(Qt::gray);
    }
    table_->setItem(row, kVerdict, verdict_cell);
    if (!c.status.ok()) {
      // Nothing known: blank cells, and why in the last column.
      for (int column : {kRole, kEntry, kSize, kChecksum, kPosition, kApplied}) {
        table_->setItem(row, column, Cell(QString()));
      }
      QTableWidgetItem* why = Cell(verdict == cluster::CopyVerdict::kNoStore
                                       ? tr("no docstore in this process")
                                       : QString::fromStdString(c.status.ToString()));
      why->setToolTip(QString::fromStdString(c.status.ToString()));
      table_->setItem(row, kAnsweredBy, why);
      continue;
    }
    const admin::DocLocation& l = c.location;
    const bool document = cluster::EntryKindName(l) == "document";
    table_->setItem(row, kRole, Cell(Text(cluster::DocstoreRoleName(l.role()))));
    table_->setItem(row, kEntry, Cell(Text(cluster::EntryKindName(l))));
    table_->setItem(
        row, kSize,
        Cell(document ? QString::number(l.size_bytes()) : QString("-"), Qt::AlignRight));
    table_->setItem(row, kChecksum, Cell(QString::fromStdString(cluster::ChecksumText(l))));
    table_->setItem(
        row, kPosition,
        Cell(l.position() ? QString::number(l.position()) : QString("-"), Qt::AlignRight));
    table_->setItem(row, kApplied, Cell(QString::number(l.applied_position()), Qt::AlignRight));
    table_->setItem(row, kAnsweredBy, Cell(QString::fromStdString(cluster::AnsweredBy(l))));
  }
  table_->resizeColumnsToContents();
  QString text;
  if (comparison.newest_position == 0) {
    text = tr("Document %1: no node holds it.").arg(id);
  } else {
    text = tr("Document %1: newest entry at queue position %2%3.")
               .arg(id)
               .arg(comparison.newest_position)
               .arg(comparison.newest_deleted ? tr(" (a deletion)") : QString());
  }
  if (comparison.newest_position != 0) {
    text += " " + tr("%1 of %2 nodes newest").arg(newest).arg(copies.size() - no_store);
  }
  if (behind) text += tr(", %1 behind").arg(behind);
  if (differ) text += tr(", %1 DIFFER").arg(differ);
  if (unknown) text += " " + tr("%1 unknown").arg(unknown);
  summary_->setText(text + ".");
}

}  // namespace railyard::ui
