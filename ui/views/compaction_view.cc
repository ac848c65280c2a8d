#include "ui/views/compaction_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/views/index_stack_widget.h"

namespace railyard::ui {

CompactionView::CompactionView(ClusterState* state, QWidget* parent)
    : QWidget(parent), model_(new CompactionModel(state, this)) {
  title_ = new QLabel(this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);

  memtable_ = new QProgressBar(this);
  memtable_->setTextVisible(true);
  memtable_->setToolTip(tr("The in-memory index: written to disk as a new index when full."));

  stack_ = new IndexStackWidget(this);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(stack_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);

  amplification_ = new QLabel(this);
  amplification_->setWordWrap(true);
  amplification_->setToolTip(
      tr("Index entries written to disk (flushes and compactions, over the store's life) per "
         "document write (puts and deletes since the node started); the second figure counts "
         "only what happened while the console watched."));

  compact_selected_ = new QPushButton(tr("Compact selected"), this);
  compact_selected_->setToolTip(tr("Merge the selected run of adjacent indexes into one."));
  compact_all_ = new QPushButton(tr("Compact all"), this);
  compact_all_->setToolTip(tr("Merge every on-disk index into one."));
  connect(compact_selected_, &QPushButton::clicked, this, &CompactionView::requestCompactSelected);
  connect(compact_all_, &QPushButton::clicked, this, &CompactionView::requestCompactAll);
  connect(stack_, &IndexStackWidget::selectionChanged, this, &CompactionView::updateButtons);

  // Follows the history model's own row insertions: nothing is rebuilt per frame.
  timeline_ = new QTableView(this);
  timeline_->setModel(model_->history());
  timeline_->verticalHeader()->hide();
  timeline_->setSelectionBehavior(QAbstractItemView::SelectRows);
  timeline_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  timeline_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  timeline_->horizontalHeader()->setStretchLastSection(true);

  auto* top = new QWidget(this);
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  top_layout->addWidget(title_);
  auto* mem_row = new QHBoxLayout;
  mem_row->addWidget(new QLabel(tr("In memory:"), top));
  mem_row->addWidget(memtable_, 1);
  top_layout->addLayout(mem_row);
  top_layout->addWidget(scroll, 1);
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

  connect(model_, &CompactionModel::changed, this, [this] {
    if (!isVisible()) {
      dirty_ = true;  // Catch up when shown: hidden tabs cost nothing per frame.
      return;
    }
    refresh();
  });
  refresh();
}

void CompactionView::setNode(int node_index) {
  model_->setNode(node_index);
  stack_->clearSelection();
  refresh();
}

void CompactionView::setActionsEnabled(bool enabled) {
  actions_enabled_ = enabled;
  updateButtons();
}

void CompactionView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (dirty_) refresh();
}

QString CompactionView::writeAmplificationText() const {
  if (!model_->hasData()) return {};
  const QLocale locale;
  QString text = tr("Write amplification %1 (%2 index entries written / %3 document writes)")
                     .arg(model_->writeAmplification(), 0, 'f', 2)
                     .arg(locale.toString(model_->indexEntryWrites()),
                          locale.toString(model_->documentWrites()));
  const double observed = model_->observedWriteAmplification();
  if (observed >= 0) text += tr("; %1 while watched").arg(observed, 0, 'f', 2);
  return text;
}

void CompactionView::refresh() {
  dirty_ = false;
  const QLocale locale;
  if (!model_->hasData()) {
    title_->setText(model_->node() < 0 ? tr("No node selected") : tr("No telemetry yet"));
  } else {
    title_->setText(tr("%n on-disk index(es), %1 entries", "", int(model_->indexes().size()))
                        .arg(locale.toString(model_->totalIndexEntries())));
  }
  memtable_->setRange(0, int(std::min<quint64>(model_->memtableCapacity(), INT_MAX)));
  memtable_->setValue(int(std::min<quint64>(model_->memtableEntries(), INT_MAX)));
  memtable_->setFormat(tr("%1 / %2 entries (%3%)")
                           .arg(locale.toString(model_->memtableEntries()),
                                locale.toString(model_->memtableCapacity()))
                           .arg(model_->memtableFill() * 100, 0, 'f', 0));
  stack_->setData(model_->indexes(), model_->memtableEntries(), model_->memtableCapacity());
  amplification_->setText(writeAmplificationText());

  updateButtons();
}

void CompactionView::updateButtons() {
  const bool live = actions_enabled_ && model_->hasData();
  const QVector<quint64> selected = stack_->selectedIds();
  compact_selected_->setEnabled(live && selected.size() >= 2 && model_->areAdjacent(selected));
  compact_all_->setEnabled(live && !model_->indexes().isEmpty());
}

void CompactionView::requestCompactSelected() {
  const QVector<quint64> selected = stack_->selectedIds();
  if (!compact_selected_->isEnabled() || selected.size() < 2) return;
  Q_EMIT compactRequested(model_->node(), selected);
}

void CompactionView::requestCompactAll() {
  if (!compact_all_->isEnabled()) return;
  Q_EMIT compactRequested(model_->node(), {});
}

}  // namespace railyard::ui
