// SPDX-License-Identifier: Apache-2.0
// The console's Node > Find document on real railyard-node processes and a load client: the
// dialog asks every watched node (the window's own session, its tokens) and shows each copy's
// verdict, size, checksum, position and what answered; a killed replica reads "unknown" with the
// reason, the load client "no store"; bad input is refused with the reason. A screenshot of the
// dialog is kept (build/<preset>/screenshots/find_document.png).
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

// The checksum computed here on its own, header-only.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "tests/e2e/replication_support.h"
#include "tests/support/load_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "ui/session/session.h"
#include "ui/shell/find_document_dialog.h"
#include "ui/shell/main_window.h"

using railyard::testing::ScreenshotDir;

using namespace railyard;
using namespace railyard::e2e;
using railyard::ui::FindDocumentDialog;

namespace {

QString ChecksumHex(const std::string& doc) {
  return QString("%1").arg(XXH3_64bits(doc.data(), doc.size()), 16, 16, QChar('0'));
}

// Column `column` of the dialog's table, keyed by the node in the first column.
std::map<QString, QString> ColumnByNode(const FindDocumentDialog& dialog, int column) {
  const auto* table = dialog.findChild<QTableWidget*>();
  std::map<QString, QString> out;
  for (int row = 0; table && row < table->rowCount(); ++row) {
    const QTableWidgetItem* node = table->item(row, FindDocumentDialog::kNode);
    const QTableWidgetItem* cell = table->item(row, column);
    if (node) out[node->text()] = cell ? cell->text() : QString();
  }
  return out;
}

QString SummaryOf(const FindDocumentDialog& dialog) {
  for (const QLabel* label : dialog.findChildren<QLabel*>()) {
    if (label->text().startsWith("Document ") || label->text().startsWith("Not a document")) {
      return label->text();
    }
  }
  return {};
}

}  // namespace

class ConsoleFindDocumentTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<NodeProcess> updater_, replica_;
  railyard::testing::LoadProcess load_;
  std::unique_ptr<ui::MainWindow> window_;

  // Asks for `id` and waits for the answers.
  bool FindAndWait(FindDocumentDialog& dialog, const QString& id) {
    QSignalSpy found(&dialog, &FindDocumentDialog::Found);
    dialog.Find(id);
    return found.wait(30000);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY(WriteTokenFiles(dir_.path()));
    updater_ = StartNodeIn(dir_.path(), "updater", UpdaterArgs(dir_.path()));
    QVERIFY(updater_);
    replica_ = StartNodeIn(dir_.path(), "replica", ReplicaArgs(dir_.path(), *updater_));
    QVERIFY(replica_);
    // Reads only, over both: a process the cluster file lists that holds no documents.
    QVERIFY(load_.Start({"--updater", updater_->service_address(), "--read",
                         updater_->service_address() + "," + replica_->service_address(),
                         "--read-fraction", "1", "--rate", "50", "--keys", "100"}));
  }

  void findsEveryCopyFromTheConsole() {
    std::unique_ptr<rpc::Client> writer = ConnectTo(*updater_);
    QVERIFY(writer);
    const std::string doc = "a document the console looks for";
    uint64_t position = 0;
    QVERIFY(Put(*writer, 1001, doc, &position).ok());
    const QString lag = WaitCaughtUp(*updater_, {replica_.get()}, position);
    QVERIFY2(lag.isEmpty(), qPrintable(lag));

    const QString cluster_file = dir_.filePath("find.textproto");
    QFile file(cluster_file);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("name: \"find\"\n");
    file.write(QString("node { name: \"load\" admin: \"%1\" }\n").arg(load_.admin()).toUtf8());
    for (const NodeProcess* n : {updater_.get(), replica_.get()}) {
      file.write(QString("node { name: \"%1\" admin: \"%2\" }\n")
                     .arg(n->name(), n->admin_address())
                     .toUtf8());
    }
    file.close();

    ui::MainWindow::Options options;
    options.use_keyring = false;
    options.audit_path = dir_.filePath("audit.sqlite");
    window_ = std::make_unique<ui::MainWindow>(options);
    QVERIFY(!window_->FindDocumentAction()->isEnabled());  // Nothing live to ask yet.
    window_->show();
    QString error;
    QVERIFY2(window_->session()->OpenClusterFile(cluster_file, kViewerToken, &error),
             qPrintable(error));
    QVERIFY(window_->FindDocumentAction()->isEnabled());
    // The nodes' names come from their telemetry, as the table shows them.
    QVERIFY(WaitFor([&] {
      const std::vector<cluster::CopyTarget> targets = window_->session()->CopyTargets();
      return targets.size() == 3 && targets[1].node == "updater" && targets[2].node == "replica";
    }));

    window_->FindDocumentAction()->trigger();
    FindDocumentDialog* dialog = window_->find_document_dialog();
    QVERIFY(dialog && dialog->isVisible());
    QVERIFY(FindAndWait(*dialog, "1001"));
    std::map<QString, QString> verdicts = ColumnByNode(*dialog, FindDocumentDialog::kVerdict);
    QCOMPARE(verdicts["updater"], QString("newest"));
    QCOMPARE(verdicts["replica"], QString("newest"));
    QCOMPARE(verdicts["load"], QString("no store"));
    const std::map<QString, QString> checksums =
        ColumnByNode(*dialog, FindDocumentDialog::kChecksum);
    QCOMPARE(checksums.at("updater"), ChecksumHex(doc));
    QCOMPARE(checksums.at("replica"), ChecksumHex(doc));
    QCOMPARE(ColumnByNode(*dialog, FindDocumentDialog::kSize)["replica"],
             QString::number(doc.size()));
    QCOMPARE(ColumnByNode(*dialog, FindDocumentDialog::kPosition)["replica"],
             QString::number(position));
    QVERIFY2(SummaryOf(*dialog).contains("2 of 2 nodes newest"), qPrintable(SummaryOf(*dialog)));
    dialog->resize(1100, 260);
    QVERIFY(dialog->grab().save(QDir(ScreenshotDir()).filePath("find_document.png")));

    // The replica killed, the document rewritten: the updater's copy is the newest, the replica
    // cannot be asked and says why.
    replica_->Kill();
    QVERIFY(Put(*writer, 1001, doc + ", rewritten", &position).ok());
    QVERIFY(FindAndWait(*dialog, "1001"));
    verdicts = ColumnByNode(*dialog, FindDocumentDialog::kVerdict);
    QCOMPARE(verdicts["updater"], QString("newest"));
    QCOMPARE(verdicts["replica"], QString("unknown"));
    QVERIFY(
        ColumnByNode(*dialog, FindDocumentDialog::kAnsweredBy)["replica"].contains("UNAVAILABLE"));
    QVERIFY2(SummaryOf(*dialog).contains("1 unknown"), qPrintable(SummaryOf(*dialog)));

    dialog->Find("not-a-number");  // Refused at once: no lookup starts.
    QVERIFY(!dialog->Busy());
    QVERIFY2(SummaryOf(*dialog).startsWith("Not a document id"), qPrintable(SummaryOf(*dialog)));
  }

  void cleanupTestCase() {
    window_.reset();
    load_.Stop();
    replica_.reset();
    updater_.reset();
  }
};

RAILYARD_QTEST_MAIN(ConsoleFindDocumentTest)
#include "tst_console_find_document.moc"
