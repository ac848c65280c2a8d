// SPDX-License-Identifier: Apache-2.0
// Boxcar's two I/O engines (core/rpc/io_engine.h): each runs what it was asked for, the two speak
// to each other, large frames cross both whole, connections closed under way give back their
// sockets, and a kernel that refuses io_uring leaves a server on epoll that says why and serves.
// The rest of the rpc suites run on the default engine and again on epoll (tests/rpc/CMakeLists).
#include <linux/io_uring.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <QProcess>
#include <QProcessEnvironment>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTest>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/rpc/client.h"
#include "core/rpc/server.h"
#include "tests/rpc/rpc_test_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"
#include "tests/support/wait_until.h"

using namespace railyard::rpc;
using namespace railyard::rpc::testing;
using railyard::testing::WaitUntil;
using namespace std::chrono_literals;

namespace {

// Whether this kernel gives this process a ring, asked without the runtime's own code, once, on a
// thread of its own (a thread that set up a ring is flagged like a signal when the ring goes,
// which theStartingThreadIsNeverInterrupted would take for the runtime's doing).
bool KernelAllowsIoUring() {
  static const bool allowed = [] {
    bool result = false;
    std::thread([&result] {
      io_uring_params params{};
      const long fd = ::syscall(__NR_io_uring_setup, 4, &params);
      if (fd < 0) return;
      ::close(static_cast<int>(fd));
      result = true;
    }).join();
    return result;
  }();
  return allowed;
}

IoEngine Expected(IoEngine asked) {
  return asked == IoEngine::kIoUring && KernelAllowsIoUring() ? IoEngine::kIoUring
                                                              : IoEngine::kEpoll;
}

std::unique_ptr<Server> StartEchoServer(IoEngine engine, size_t io_threads = 2) {
  ServerOptions options;
  options.name = "engine-" + std::string(IoEngineName(engine));
  options.io_threads = io_threads;
  options.io_engine = engine;
  options.max_frame_bytes = 8 << 20;
  auto server = std::make_unique<Server>(options);
  server->RegisterHandler(
      kEchoMethod,
      [](const CallContext&, std::string_view payload) {
        return Reply{Status::Ok(), std::string(payload)};
      },
      Dispatch::kInline);
  const Status started = server->Start();
  if (!started.ok()) return nullptr;
  return server;
}

ClientOptions EngineClient(const Server& server, IoEngine engine, size_t pool) {
  ClientOptions options = FastClientOptions({server.endpoint()}, pool);
  options.io_engine = engine;
  options.max_frame_bytes = 8 << 20;
  return options;
}

size_t OpenDescriptors() {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++count;
  }
  return count;
}

// A payload whose every byte depends on its position and on `seed`, so a frame put together from
// the wrong reads or cut short cannot compare equal.
std::string Patterned(size_t bytes, unsigned seed) {
  std::string payload(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) payload[i] = static_cast<char>((i * 131 + seed * 7) % 251);
  return payload;
}

class EnvironmentGuard {
 public:
  explicit EnvironmentGuard(const char* name) : name_(name), had_(qEnvironmentVariableIsSet(name)) {
    if (had_) old_ = qgetenv(name);
  }
  ~EnvironmentGuard() {
    if (had_) {
      qputenv(name_, old_);
    } else {
      qunsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_;
  QByteArray old_;
};

}  // namespace

class IoEngineTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Every pairing of server and client engine serves calls of every size, from a byte to 4 MiB
  // (many reads and partial writes), and each side runs the engine it was asked for.
  void everyPairingCarriesFramesOfEverySize_data() {
    QTest::addColumn<IoEngine>("server_engine");
    QTest::addColumn<IoEngine>("client_engine");
    for (IoEngine s : {IoEngine::kEpoll, IoEngine::kIoUring}) {
      for (IoEngine c : {IoEngine::kEpoll, IoEngine::kIoUring}) {
        const std::string row =
            "server " + std::string(IoEngineName(s)) + ", client " + std::string(IoEngineName(c));
        QTest::newRow(row.c_str()) << s << c;
      }
    }
  }
  void everyPairingCarriesFramesOfEverySize() {
    QFETCH(IoEngine, server_engine);
    QFETCH(IoEngine, client_engine);
    auto server = StartEchoServer(server_engine);
    QVERIFY(server);
    QCOMPARE(server->io_engine(), Expected(server_engine));
    Client client(EngineClient(*server, client_engine, 4));
    QCOMPARE(client.io_engine(), IoEngine::kEpoll);  // Nothing chosen before Start.
    QVERIFY(client.Start().ok());
    QCOMPARE(client.io_engine(), Expected(client_engine));
    QVERIFY(client.WaitForPool(4, 10s));
    unsigned seed = 0;
    for (size_t bytes : {size_t{1}, size_t{100}, size_t{4095}, size_t{4096}, size_t{70000},
                         size_t{1} << 20, size_t{4} << 20}) {
      const std::string payload = Patterned(bytes, ++seed);
      const CallResult result = client.Call(kEchoMethod, payload, 20s);
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
      QVERIFY2(result.payload == payload, ("echo of " + std::to_string(bytes) + " bytes").c_str());
    }
    // Calls four at a time, as many as the pool holds, so several frames cross at once.
    constexpr int kWaves = 100;
    constexpr int kWidth = 4;
    std::atomic<int> good{0};
    std::atomic<int> answered{0};
    for (int wave = 0; wave < kWaves; ++wave) {
      for (int i = 0; i < kWidth; ++i) {
        auto payload = std::make_shared<std::string>(Patterned(64 + (wave * kWidth + i) % 700, i));
        client.AsyncCall(kEchoMethod, *payload, [&, payload](CallResult&& r) {
          if (r.status.ok() && r.payload == *payload) good.fetch_add(1);
          answered.fetch_add(1);
        });
      }
      QVERIFY(WaitUntil([&] { return answered.load() == (wave + 1) * kWidth; }, 20s));
    }
    QCOMPARE(good.load(), kWaves * kWidth);
    client.Stop();
    QVERIFY(WaitUntil([&] { return server->SlotSnapshot().empty(); }, 5s));
  }

  // kAuto follows RAILYARD_RPC_IO, and without it (or with a value that names no engine) takes
  // io_uring where the kernel allows it.
  void automaticChoiceFollowsTheEnvironment() {
    EnvironmentGuard guard("RAILYARD_RPC_IO");
    const struct {
      const char* value;  // null: unset.
      IoEngine expected;
    } cases[] = {{nullptr, Expected(IoEngine::kIoUring)},
                 {"epoll", IoEngine::kEpoll},
                 {"io_uring", Expected(IoEngine::kIoUring)},
                 {"kqueue", Expected(IoEngine::kIoUring)}};
    for (const auto& c : cases) {
      if (c.value == nullptr) {
        qunsetenv("RAILYARD_RPC_IO");
      } else {
        qputenv("RAILYARD_RPC_IO", c.value);
      }
      auto server = StartEchoServer(IoEngine::kAuto, 1);
      QVERIFY(server);
      QVERIFY2(server->io_engine() == c.expected, c.value ? c.value : "(unset)");
      Client client(EngineClient(*server, IoEngine::kAuto, 2));
      QVERIFY(client.Start().ok());
      QVERIFY2(client.io_engine() == c.expected, c.value ? c.value : "(unset)");
      QVERIFY(client.WaitForPool(2, 10s));
      const CallResult result = client.Call(kEchoMethod, "auto", 10s);
      QVERIFY2(result.status.ok(), result.status.ToString().c_str());
    }
  }

  // Clients that come and go with calls under way (their sockets shut down while a receive waits
  // in the kernel) give every socket back: the process holds no more descriptors than before.
  void connectionsClosedUnderWayGiveTheirSocketsBack() {
    if (!KernelAllowsIoUring()) QSKIP("this kernel refuses io_uring to this process");
    auto server = StartEchoServer(IoEngine::kIoUring);
    QVERIFY(server);
    {  // The first client and server leave threads and rings behind that are not leaks.
      Client warm(EngineClient(*server, IoEngine::kIoUring, 2));
      QVERIFY(warm.Start().ok());
      QVERIFY(warm.WaitForPool(2, 10s));
      QVERIFY(warm.Call(kEchoMethod, "warm", 10s).status.ok());
    }
    QVERIFY(WaitUntil([&] { return server->SlotSnapshot().empty(); }, 5s));
    const size_t before = OpenDescriptors();
    for (int round = 0; round < 10; ++round) {
      Client client(EngineClient(*server, IoEngine::kIoUring, 8));
      QVERIFY(client.Start().ok());
      QVERIFY(client.WaitForPool(8, 10s));
      const std::string payload = Patterned(200000, round);
      for (int i = 0; i < 8; ++i) client.AsyncCall(kEchoMethod, payload, [](CallResult&&) {});
      client.Stop();  // With calls in flight: answers and requests cut off mid-frame.
    }
    QVERIFY(WaitUntil([&] { return server->SlotSnapshot().empty(); }, 10s));
    QVERIFY2(
        WaitUntil([&] { return OpenDescriptors() <= before; }, 10s),
        ("descriptors " + std::to_string(OpenDescriptors()) + ", before " + std::to_string(before))
            .c_str());
    // And the server still serves.
    Client after(EngineClient(*server, IoEngine::kIoUring, 2));
    QVERIFY(after.Start().ok());
    QVERIFY(after.WaitForPool(2, 10s));
    QVERIFY(after.Call(kEchoMethod, "after", 10s).status.ok());
  }

  // The thread that starts and stops servers and clients on io_uring (a program's main thread) is
  // never interrupted afterwards: the kernel flags every thread that set up or used a ring when the
  // ring goes, and a blocking read with a timeout on a flagged thread fails with EINTR. Each round
  // reads with a 200 ms timeout right after a server and a client went, and must time out.
  void theStartingThreadIsNeverInterrupted() {
    if (!KernelAllowsIoUring()) QSKIP("this kernel refuses io_uring to this process");
    int pair[2];
    QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
    auto close_pair = qScopeGuard([&] {
      ::close(pair[0]);
      ::close(pair[1]);
    });
    timeval timeout{0, 200'000};
    QCOMPARE(::setsockopt(pair[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout), 0);
    for (int round = 0; round < 4; ++round) {
      {
        auto server = StartEchoServer(IoEngine::kIoUring);
        QVERIFY(server);
        Client client(EngineClient(*server, IoEngine::kIoUring, 2));
        QVERIFY(client.Start().ok());
        QVERIFY(client.WaitForPool(2, 10s));
        QVERIFY(client.Call(kEchoMethod, "round", 10s).status.ok());
      }
      char byte = 0;
      const ssize_t got = ::recv(pair[0], &byte, 1, 0);
      const int error = errno;
      QCOMPARE(got, ssize_t{-1});
      QVERIFY2(error == EAGAIN || error == EWOULDBLOCK,
               ("round " + std::to_string(round) + ": " + std::strerror(error)).c_str());
    }
  }

  // A kernel that refuses io_uring (made here by strace failing io_uring_setup with EPERM, as a
  // seccomp filter or kernel.io_uring_disabled would): the server runs on epoll, its log line says
  // why, and it serves.
  void aRefusedRingFallsBackToEpollAndSaysWhy() {
    const QString strace = QStandardPaths::findExecutable("strace");
    if (strace.isEmpty())
      QSKIP("strace is not installed (Debian: strace; scripts/install-deps.sh)");
    QProcess process;
    // The server chooses for itself (kAuto), whatever engine this run was told to use.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove("RAILYARD_RPC_IO");
    process.setProcessEnvironment(environment);
    process.start(strace,
                  {"-f", "-qq", "-o", "/dev/null", "-e", "trace=io_uring_setup", "-e",
                   "inject=io_uring_setup:error=EPERM",
                   railyard::testing::BuiltProgram("rpc_test_server"), "--name", "refused-ring"});
    QVERIFY(process.waitForStarted(5000));
    auto stop = qScopeGuard([&] {
      process.kill();  // strace, which takes the server with it (it traces it).
      process.waitForFinished(5000);
    });
    QByteArray out;
    QByteArray err;
    QVERIFY(WaitUntil(
        [&] {
          process.waitForReadyRead(50);
          out += process.readAllStandardOutput();
          err += process.readAllStandardError();
          return out.contains('\n') && err.contains("listening");
        },
        20s));
    QVERIFY2(err.contains("on epoll (no io_uring: setting up a ring: Operation not permitted)"),
             err.constData());
    const qsizetype at = out.indexOf("PORT ");
    QVERIFY(at >= 0);
    const auto port = static_cast<uint16_t>(out.mid(at + 5).split('\n').front().toUInt());
    Client client(FastClientOptions({{"127.0.0.1", port}}, 2));
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(2, 10s));
    const CallResult result = client.Call(kEchoMethod, "on epoll", 10s);
    QVERIFY2(result.status.ok(), result.status.ToString().c_str());
    QCOMPARE(result.payload, std::string("on epoll"));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(IoEngineTest)
#include "tst_io_engine.moc"
