// SPDX-License-Identifier: Apache-2.0
#include "ui/views/compaction_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

namespace railyard::ui {

CompactionView::CompactionView(ClusterState* state, QWidget* parent)
    : CompactionView(new CompactionModel(state), parent) {
  model_->setParent(this);
}

CompactionView::CompactionView(CompactionModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
  title_ = new QLabel(this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);

  next_flush_ = new QLabel(this);
  next_flush_->setToolTip(
      tr("The node flushes its in-memory index when it is full, and merges it with each next-older "
         "index while the new index is at least that index's size (the compaction rule). The "
         "outlined indexes are the ones the next flush merges."));

  stack_ = new IndexStackWidget(this);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(stack_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);

  amplification_ = new QLabel(this);
  amplification_->setWordWrap(true);
  amplification_->setToolTip(
      tr("Index entries written to disk (flushes and compactions, over the store's life) per "
         "document write (puts and deletes since the node started). \"While watched\" is the "
         "same ratio over what happened since the console first saw this node: it is kept per "
         "node when you switch nodes, and starts again only if the node restarts."));

  cache_ = new QLabel(this);
  cache_->setWordWrap(true);
  cache_->setToolTip(
      tr("The node's cache of documents in front of its segment files: the share of lookups it "
         "answered since the previous snapshot and since the node started, and its memory "
         "against its budget."));

  compact_selected_ = new QPushButton(tr("Compact selected"), this);
  compact_selected_->setToolTip(tr("Merge the selected run of adjacent indexes into one."));
  compact_all_ = new QPushButton(tr("Compact all"), this);
  compact_all_->setToolTip(tr("Merge every on-disk index of this node into one."));
  connect(compact_selected_, &QPushButton::clicked, this, &CompactionView::RequestCompactSelected);
  connect(compact_all_, &QPushButton::clicked, this, &CompactionView::RequestCompactAll);
  connect(stack_, &IndexStackWidget::SelectionChanged, this, &CompactionView::UpdateButtons);

  // Follows the history model's own row insertions: nothing is rebuilt per frame.
  timeline_ = new QTableView(this);
  timeline_->setModel(model_->History());
  timeline_->verticalHeader()->hide();
  timeline_->setSelectionBehavior(QAbstractItemView::SelectRows);
  timeline_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  timeline_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  timeline_->horizontalHeader()->setStretchLastSection(true);

  auto* top = new QWidget(this);
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  top_layout->addWidget(title_);
  top_layout->addWidget(next_flush_);
  top_layout->addWidget(scroll, 1);
  top_layout->addWidget(cache_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(amplification_, 1);
  buttons->addWidget(compact_selected_);
  buttons->addWidget(compact_all_);
  top_layout->addLayout(buttons);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(top);
  splitter->addWidget(timeline_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(splitter);

  connect(model_, &CompactionModel::Changed, this, [this] {
    if (!isVisible()) {
      dirty_ = true;  // Catch up when shown: hidden tabs cost nothing per frame.
      return;
    }
    Refresh();
  });
  Refresh();
}

void CompactionView::SetNode(int node_index) {
  model_->SetNode(node_index);
  stack_->ClearSelection();
  Refresh();
}

void CompactionView::SetActionsEnabled(bool enabled) {
  actions_enabled_ = enabled;
  UpdateButtons();
}

void CompactionView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (dirty_) Refresh();
}

QString CompactionView::Heading() const {
  if (model_->Node() < 0) return tr("No node selected");
  const QString name = model_->NodeName();
  if (!model_->HasData()) return tr("%1: no telemetry yet").arg(name);
  const QLocale locale;
  const int count = int(model_->Indexes().size());
  const QString entries = locale.toString(model_->TotalIndexEntries());
  if (count == 1) return tr("%1: 1 on-disk index, %2 entries").arg(name, entries);
  return tr("%1: %2 on-disk indexes, %3 entries").arg(name).arg(count).arg(entries);
}

QString CompactionView::NextFlushText() const {
  if (!model_->HasData() || model_->MemtableCapacity() == 0) return {};
  QStringList set{tr("mem")};
  for (quint64 id : model_->NextFlushInputs()) set << QStringLiteral("#%1").arg(id);
  const QString fill = tr("memtable at %1%").arg(model_->MemtableFill() * 100, 0, 'f', 0);
  if (set.size() == 1) {
    return tr("%1 \u2192 next flush writes mem as a new index (merges nothing)").arg(fill);
  }
  return tr("%1 \u2192 next flush merges %2").arg(fill, set.join(QStringLiteral(" + ")));
}

QString CompactionView::WriteAmplificationText() const {
  if (!model_->HasData()) return {};
  const QLocale locale;
  QString text = tr("Write amplification %1 (%2 index entries written / %3 document writes)")
                     .arg(model_->WriteAmplification(), 0, 'f', 2)
                     .arg(locale.toString(model_->IndexEntryWrites()),
                          locale.toString(model_->DocumentWrites()));
  const double observed = model_->ObservedWriteAmplification();
  if (observed >= 0) text += tr("; %1 while watched").arg(observed, 0, 'f', 2);
  return text;
}

QString CompactionView::CacheText() const {
  if (!model_->HasData()) return {};
  const DocCacheFigures& cache = model_->Cache();
  if (!cache.enabled) return tr("Document cache: off");
  const QLocale locale;
  const auto percent = [](double rate) {
    return rate < 0 ? QStringLiteral("-") : QStringLiteral("%1%").arg(rate * 100, 0, 'f', 1);
  };
  const QString interval = cache.interval_ms > 0
                               ? tr("%1 hits over the last %2 s")
                                     .arg(percent(cache.interval_hit_rate))
                                     .arg(double(cache.interval_ms) / 1000.0, 0, 'f', 1)
                               : tr("- hits over the last interval");
  return tr("Document cache: %1, %2 since start; %3 of %4 (%5 documents)")
      .arg(interval, percent(cache.hit_rate), locale.formattedDataSize(qint64(cache.bytes)),
           locale.formattedDataSize(qint64(cache.budget_bytes)), locale.toString(cache.entries));
}

void CompactionView::Refresh() {
  dirty_ = false;
  title_->setText(Heading());
  const QString name = model_->NodeName();
  compact_all_->setText(name.isEmpty() ? tr("Compact all") : tr("Compact all of %1").arg(name));
  // No telemetry: an explicit empty state, not an empty in-memory index of 0 / 0.
  const bool has_data = model_->HasData();
  next_flush_->setText(NextFlushText());
  next_flush_->setVisible(has_data);
  stack_->SetEmptyText(
      has_data ? QString()
      : model_->Node() < 0
          ? tr("Select a node to see its indexes.")
          : tr("No storage telemetry from %1 yet: its indexes appear with its first answer.")
                .arg(name));
  stack_->SetData(model_->Indexes(), model_->MemtableEntries(), model_->MemtableCapacity());
  stack_->SetMarks(model_->RecentSets());
  stack_->SetNextFlush(model_->NextFlushInputs());
  amplification_->setText(WriteAmplificationText());
  cache_->setText(CacheText());

  UpdateButtons();
}

void CompactionView::UpdateButtons() {
  const bool live = actions_enabled_ && model_->HasData();
  const QVector<quint64> selected = stack_->SelectedIds();
  compact_selected_->setEnabled(live && selected.size() >= 2 && model_->AreAdjacent(selected));
  compact_all_->setEnabled(live && !model_->Indexes().isEmpty());
}

void CompactionView::RequestCompactSelected() {
  const QVector<quint64> selected = stack_->SelectedIds();
  if (!compact_selected_->isEnabled() || selected.size() < 2) return;
  Q_EMIT CompactRequested(model_->Node(), selected);
}

void CompactionView::RequestCompactAll() {
  if (!compact_all_->isEnabled()) return;
  Q_EMIT CompactRequested(model_->Node(), {});
}

}  // namespace railyard::ui
