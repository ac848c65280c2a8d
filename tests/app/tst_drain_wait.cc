// SPDX-License-Identifier: Apache-2.0
// `railyardctl drain --wait` for rolling restarts: it drains the node, then returns 0 once no
// client holds a slot there (so no request is in flight), printing progress meanwhile; with
// clients that stay, it gives up at --timeout with exit 5. The clients here say hello and then
// ignore the lame duck (as a client of another implementation, or a stuck one, might), so they
// hold their slots until the test closes them.
#include <signal.h>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <asio.hpp>
#include <memory>

#include "core/rpc/frame.h"
#include "railyard/rpc.pb.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;
using railyard::testing::kOperatorToken;

using namespace railyard;

namespace {

// A Boxcar connection that says hello, takes its slot, and then just stays.
class SlotHolder {
 public:
  explicit SlotHolder(uint16_t port) : socket_(io_) {
    asio::error_code ec;
    socket_.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    if (ec) return;
    rpc::wire::Frame hello;
    hello.mutable_hello()->set_client_id(4242);
    hello.mutable_hello()->set_client_name("slot-holder");
    hello.mutable_hello()->set_protocol_version(rpc::kProtocolVersion);
    asio::write(socket_, asio::buffer(rpc::EncodeFrame(hello)), ec);
    unsigned char header[rpc::kFrameHeaderBytes];
    if (!ec) asio::read(socket_, asio::buffer(header), ec);
    std::string body(ec ? 0 : rpc::DecodeFrameLength(header), '\0');
    if (!ec) asio::read(socket_, asio::buffer(body), ec);
    rpc::wire::Frame welcome;
    welcomed_ = !ec && welcome.ParseFromString(body) && welcome.has_welcome();
  }
  bool welcomed() const { return welcomed_; }
  // Shut down, not just closed: a railyardctl started meanwhile inherited the descriptor.
  void Close() {
    asio::error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }
  ~SlotHolder() { Close(); }

 private:
  asio::io_context io_;
  asio::ip::tcp::socket socket_;
  bool welcomed_ = false;
};

}  // namespace

class DrainWaitTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QProcess node_;
  uint16_t service_port_ = 0;
  QString admin_;

  QStringList Drain(const QStringList& extra) const {
    return QStringList{"drain", "-n", admin_, "--token", kOperatorToken, "--wait"} + extra;
  }

 private Q_SLOTS:
  void initTestCase() {
    QFile tokens(dir_.filePath("operator.tokens"));
    QVERIFY(tokens.open(QIODevice::WriteOnly));
    tokens.write(QByteArray(kOperatorToken) + "\n");
    tokens.close();
    node_.setProcessChannelMode(
        QProcess::ForwardedErrorChannel);  // Its log, unread, never fills a pipe.
    node_.start(BuiltProgram("railyard-node"),
                {"--data-dir", dir_.filePath("data"), "--listen", "127.0.0.1:0",
                 "--operator-token-file", tokens.fileName()});
    QVERIFY(node_.waitForStarted(5000));
    QVERIFY(node_.waitForReadyRead(30000));
    const QRegularExpressionMatch m =
        QRegularExpression(R"(LISTEN 127\.0\.0\.1:(\d+) ADMIN (127\.0\.0\.1:\d+))")
            .match(QString::fromUtf8(node_.readLine()));
    QVERIFY(m.hasMatch());
    service_port_ = uint16_t(m.captured(1).toUInt());
    admin_ = m.captured(2);
  }

  void cleanupTestCase() {
    if (node_.state() == QProcess::NotRunning) return;
    ::kill(pid_t(node_.processId()), SIGKILL);
    node_.waitForFinished(5000);
  }

  void givesUpAtTheTimeoutWhileClientsStay() {
    SlotHolder a(service_port_), b(service_port_);
    QVERIFY(a.welcomed() && b.welcomed());
    QProcess ctl;
    ctl.start(BuiltProgram("railyardctl"), Drain({"--timeout", "300ms"}));
    QVERIFY(ctl.waitForFinished(20000));
    const QString out = QString::fromUtf8(ctl.readAllStandardOutput());
    const QString err = QString::fromUtf8(ctl.readAllStandardError());
    QVERIFY2(ctl.exitCode() == 5,
             qPrintable(QString("exit %1\n%2%3").arg(ctl.exitCode()).arg(out, err)));
    QVERIFY2(out.contains("waiting: 2 client slots held"), qPrintable(out));
    QVERIFY2(err.contains("not drained before the timeout: 2 client slots still held"),
             qPrintable(err));
  }

  void returnsOnceTheLastClientHasGone() {
    auto a = std::make_unique<SlotHolder>(service_port_);
    auto b = std::make_unique<SlotHolder>(service_port_);
    QVERIFY(a->welcomed() && b->welcomed());
    QProcess ctl;
    ctl.start(BuiltProgram("railyardctl"), Drain({"--timeout", "60s"}));
    QVERIFY(ctl.waitForStarted(5000));
    QString out;
    // Each wait below is bounded (at most 30 s), and ends as soon as the line is there.
    for (int i = 0; i < 300 && !out.contains("waiting: 2 client slots held"); ++i) {
      ctl.waitForReadyRead(100);
      out += QString::fromUtf8(ctl.readAllStandardOutput());
    }
    QVERIFY2(out.contains("waiting: 2 client slots held"), qPrintable(out));
    a->Close();
    for (int i = 0; i < 300 && !out.contains("waiting: 1 client slot held"); ++i) {
      ctl.waitForReadyRead(100);
      out += QString::fromUtf8(ctl.readAllStandardOutput());
    }
    QVERIFY2(out.contains("waiting: 1 client slot held"), qPrintable(out));
    QCOMPARE(ctl.state(), QProcess::Running);  // Not drained while one client stays.
    b->Close();
    QVERIFY(ctl.waitForFinished(20000));
    out += QString::fromUtf8(ctl.readAllStandardOutput());
    QVERIFY2(ctl.exitCode() == 0, qPrintable(out + QString::fromUtf8(ctl.readAllStandardError())));
    QVERIFY2(out.contains("drained: no requests in flight, no client slots held"), qPrintable(out));
  }

  void aTimeoutThatIsNoDurationIsAUsageError() {
    QProcess ctl;
    ctl.start(BuiltProgram("railyardctl"), Drain({"--timeout", "soon"}));
    QVERIFY(ctl.waitForFinished(20000));
    QCOMPARE(ctl.exitCode(), 2);
    QVERIFY(ctl.readAllStandardError().contains("not a duration"));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DrainWaitTest)
#include "tst_drain_wait.moc"
