// The console at 300 nodes x 300 clients (issue 17): what keeps a frame, a seek and a long replay
// cheap, tested as behaviour (what is measured, signalled, kept or shown), never as a timing.
#include <QFontMetrics>
#include <QHeaderView>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

#include "ui/shell/column_fit.h"

namespace {

// A real item model that counts how often a view asks for its text.
class CountingModel : public QStandardItemModel {
 public:
  using QStandardItemModel::QStandardItemModel;
  QVariant data(const QModelIndex& index, int role) const override {
    if (role == Qt::DisplayRole) ++display_reads;
    return QStandardItemModel::data(index, role);
  }
  mutable long display_reads = 0;
};

}  // namespace

class ConsoleScaleTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // A replay seek re-adds every node, one row insertion each: the fitted table measures its
  // contents once for the lot (the first row's insertion and the last's), not once per row, which
  // read 300 x 300 / 2 cells per column at 300 nodes. The widest name, added last, still counts.
  void columnFitMeasuresRowsAddedTogetherOnce() {
    constexpr int kRows = 200, kColumns = 3;
    CountingModel model(0, kColumns);
    QTableView table;
    table.setModel(&model);
    table.resize(900, 300);
    railyard::ui::FitColumnsToWidth(&table);
    table.show();
    QVERIFY(QTest::qWaitForWindowExposed(&table));
    model.display_reads = 0;
    const QString widest = QStringLiteral("a-node-name-much-wider-than-the-others");
    for (int r = 0; r < kRows; ++r) {
      QList<QStandardItem*> row;
      for (int c = 0; c < kColumns; ++c) {
        row.append(new QStandardItem(r + 1 == kRows && c == 0 ? widest : QString("n%1").arg(r)));
      }
      model.appendRow(row);
    }
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    // Once: kRows x kColumns reads to measure, and the visible rows painted (fewer).
    QVERIFY2(model.display_reads < 3L * kRows * kColumns,
             qPrintable(QString("%1 reads of the text").arg(model.display_reads)));
    QVERIFY(table.columnWidth(0) >= QFontMetrics(table.font()).horizontalAdvance(widest));
  }
};

QTEST_MAIN(ConsoleScaleTest)
#include "tst_console_scale.moc"
