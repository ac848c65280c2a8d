// The Slots tab: the matrix view, its side panel, totals, marks and sorting, against generated
// telemetry (every expected value recomputed from the generator) and a generated recording
// replayed, in an offscreen window the size of a laptop screen.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QHeaderView>
#include <QImage>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "tests/ui/console_fixture.h"
#include "ui/models/cluster_state.h"
#include "ui/models/slot_matrix_client_detail.h"
#include "ui/models/slot_matrix_model.h"
#include "ui/sources/replay_source.h"
#include "ui/views/slot_matrix_view.h"

using railyard::ui::ClientDetailModel;
using railyard::ui::ClusterState;
using railyard::ui::ReplaySource;
using railyard::ui::SlotMatrixModel;
using railyard::ui::SlotMatrixView;
using railyard::ui::testing::GeneratedCluster;

namespace {

using Telemetry = railyard::admin::Telemetry;

// Declares the cluster's nodes and applies frame `frame` of all of them at its time.
void ApplyGenerated(ClusterState* state, const GeneratedCluster& g, int frame,
                    const std::set<int>& lame = {}) {
  if (state->NodeCount() == 0) {
    for (int n = 0; n < g.nodes; ++n) {
      state->AddNode(QString("10.0.0.%1:7001").arg(n), QString::fromStdString(g.NodeName(n)));
    }
  }
  std::vector<ClusterState::Update> updates;
  for (int n = 0; n < g.nodes; ++n) {
    updates.push_back(
        {n, std::make_shared<const Telemetry>(g.Telemetry(n, frame, lame.count(n) > 0))});
  }
  state->ApplyFrame(updates, g.TimeOf(frame));
}

// What the side panel's rows show: how many, and how many of them say "busy".
std::pair<int, int> DetailRows(const SlotMatrixView& view) {
  const QAbstractItemModel* rows = view.Detail()->model();
  int busy = 0;
  for (int r = 0; r < rows->rowCount(); ++r) {
    busy += rows->index(r, ClientDetailModel::kBusy).data().toString() == "busy" ? 1 : 0;
  }
  return {rows->rowCount(), busy};
}

// Writes the widget's picture under the build folder and checks it is a real image.
[[maybe_unused]] void Screenshot(QWidget* widget, const QString& name) {
  QDir().mkpath(SCREENSHOT_DIR);
  const QString path = QDir(SCREENSHOT_DIR).filePath(name);
  QCoreApplication::processEvents();
  QVERIFY(widget->grab().save(path));
  const QImage image(path);
  QVERIFY(!image.isNull());
  qInfo("screenshot: %s", qPrintable(path));
}

}  // namespace

class SlotMatrixTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // B1: the side panel's title follows the selected client frame by frame.
  void sidePanelTitleFollowsTheSelectedClient() {
    GeneratedCluster g;
    g.nodes = 6;
    g.clients = 10;
    g.pool_size = 4;
    ClusterState state;
    SlotMatrixView view(&state);
    ApplyGenerated(&state, g, 0);
    const int client = 7;
    view.SelectClient(view.Model()->RowOfClient(GeneratedCluster::ClientId(client)));
    std::set<int> busy_seen;
    for (int frame = 1; frame <= 4; ++frame) {
      ApplyGenerated(&state, g, frame);
      const auto [rows, busy] = DetailRows(view);
      int expected_busy = 0;
      for (int s : g.ServersOf(client, frame)) expected_busy += (client + frame + s) % 3 == 0;
      QCOMPARE(rows, g.pool_size);
      QCOMPARE(busy, expected_busy);
      QCOMPARE(view.DetailTitle(),
               QString("client-007: pool 4, %1 connected, %2 busy").arg(rows).arg(busy));
      busy_seen.insert(busy);
    }
    QVERIFY(busy_seen.size() > 1);  // Else a stale title could pass.
  }

  // B2: a replay seek never leaves the previous client's rows under "Select a client".
  void replaySeekNeverLeavesRowsOfNoClient() {
    QTemporaryDir dir;
    GeneratedCluster g;
    g.nodes = 4;
    g.clients = 8;
    g.pool_size = 3;
    const QString path = dir.filePath("slots.rec");
    QVERIFY(railyard::ui::testing::WriteGeneratedRecording(path.toStdString(), g, 40).ok());
    ClusterState state;
    SlotMatrixView view(&state);
    ReplaySource replay(&state);
    QString error;
    QVERIFY2(replay.Open(path, &error), qPrintable(error));
    replay.Seek(g.TimeOf(20));
    const int row = view.Model()->RowOfClient(GeneratedCluster::ClientId(5));
    QVERIFY(row >= 0);
    view.SelectClient(row);
    QCOMPARE(DetailRows(view).first, 3);
    QVERIFY(view.DetailTitle().startsWith("client-005:"));
    for (int frame : {5, 30, 10}) {
      replay.Seek(g.TimeOf(frame));
      const auto [rows, busy] = DetailRows(view);
      const QString title = view.DetailTitle();
      if (title.startsWith("Select a client")) {
        QCOMPARE(rows, 0);
      } else {
        QVERIFY2(title.startsWith("client-005:"), qPrintable(title));
        QVERIFY(title.endsWith(QString("%1 connected, %2 busy").arg(rows).arg(busy)));
      }
    }
  }
};

QTEST_MAIN(SlotMatrixTest)
#include "tst_slot_matrix.moc"
