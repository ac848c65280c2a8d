// SPDX-License-Identifier: Apache-2.0
// `railyardctl load --data-token-file` against a real node whose docservice takes tokens: a
// writer's token carries a read and write load without one failed call, a reader's a load of
// reads only; without a token every call fails (exit 1); a token file without a token is a usage
// error that says so (exit 2).
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "core/node/node.h"
#include "tests/app/short_load.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

class LoadDataTokenTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::unique_ptr<node::Node> node_;

  QString TokenFile(const char* name, const QByteArray& text) {
    QFile file(dir_.filePath(name));
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(text);
    return file.fileName();
  }

  int Load(const QStringList& extra, QString* out) {
    return railyard::testing::ShortLoad(node_->endpoint(), extra, out);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    node::NodeOptions options;
    options.name = "token-target";
    options.data_dir = dir_.filePath("node").toStdString();
    options.io_threads = 1;
    options.worker_threads = 2;
    options.data_access.reader_tokens = {"load-reader-token"};
    options.data_access.writer_tokens = {"load-writer-token"};
    QVERIFY(node::Node::Open(options, &node_).ok());
  }

  void cleanupTestCase() {
    if (node_) node_->Shutdown(std::chrono::milliseconds(200));
  }

  void aWritersTokenCarriesTheLoad() {
    QString err;
    QCOMPARE(Load({"--data-token-file", TokenFile("w", "# writer\nload-writer-token\n")}, &err), 0);
    QCOMPARE(
        Load({"--data-token-file", TokenFile("r", "load-reader-token\n"), "--read-fraction", "1"},
             &err),
        0);
  }

  void withoutATokenEveryCallFails() {
    QString err;
    QCOMPARE(Load({}, &err), 1);
    // The summary says why, with the node's own words.
    QVERIFY2(err.contains("UNAUTHENTICATED") && err.contains("none was given"), qPrintable(err));
    QCOMPARE(Load({"--data-token-file", TokenFile("r2", "load-reader-token\n")}, &err), 1);
    QVERIFY2(err.contains("needs a writer token"), qPrintable(err));
  }

  void aTokenFileWithoutATokenIsAUsageError() {
    QString err;
    QCOMPARE(Load({"--data-token-file", TokenFile("empty", "# nothing here\n")}, &err), 2);
    QVERIFY2(err.contains("holds no token"), qPrintable(err));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(LoadDataTokenTest)
#include "tst_load_data_token.moc"
