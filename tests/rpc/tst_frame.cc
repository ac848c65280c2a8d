// SPDX-License-Identifier: Apache-2.0
// Wire framing and endpoint parsing.
#include <QTest>

#include <cstring>

#include "core/rpc/endpoint.h"
#include "core/rpc/frame.h"
#include "core/rpc/frame_io.h"
#include "core/rpc/frame_outbox.h"
#include "railyard/rpc.pb.h"
#include "tests/support/qtest_main.h"

using namespace railyard::rpc;

namespace {

// Parses the body of `frame`, encoded, into `into`.
Status Reparse(const wire::Frame& frame, wire::Frame& into) {
  const std::string bytes = EncodeFrame(frame);
  return ParseFrameBody(bytes.data() + kFrameHeaderBytes, bytes.size() - kFrameHeaderBytes, into);
}

}  // namespace

class FrameTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void encodedFrameRoundTrips() {
    wire::Frame frame;
    frame.mutable_request()->set_id(42);
    frame.mutable_request()->set_method("doc.Get");
    frame.mutable_request()->set_payload(std::string(1000, 'x'));
    const std::string bytes = EncodeFrame(frame);
    const uint32_t length = DecodeFrameLength(reinterpret_cast<const unsigned char*>(bytes.data()));
    QCOMPARE(size_t{length} + kFrameHeaderBytes, bytes.size());
    wire::Frame parsed;
    QVERIFY(ParseFrameBody(bytes.data() + kFrameHeaderBytes, length, parsed).ok());
    QCOMPARE(parsed.request().id(), uint64_t{42});
    QCOMPARE(parsed.request().payload().size(), size_t{1000});
  }

  // A connection parses every frame into one Frame, which keeps its request or response for the
  // next body of the same kind: nothing of an earlier frame may show through.
  void parsingIntoAUsedFrameLeavesNothingOfTheLastOne() {
    wire::Frame full;
    full.mutable_request()->set_id(7);
    full.mutable_request()->set_method("doc.Put");
    full.mutable_request()->set_timeout_us(500);
    full.mutable_request()->set_payload("first");
    wire::Frame bare;
    bare.mutable_request()->set_id(8);
    wire::Frame answer;
    answer.mutable_response()->set_id(9);
    answer.mutable_response()->set_error_message("boom");
    answer.mutable_response()->mutable_load()->set_utilization(0.5);
    wire::Frame quiet;
    quiet.mutable_response()->set_id(10);

    wire::Frame reused;
    QVERIFY(Reparse(full, reused).ok());
    QVERIFY(Reparse(bare, reused).ok());
    QVERIFY(reused.has_request());
    QCOMPARE(reused.request().id(), uint64_t{8});
    QVERIFY(reused.request().method().empty());
    QCOMPARE(reused.request().timeout_us(), uint64_t{0});
    QVERIFY(reused.request().payload().empty());

    QVERIFY(Reparse(answer, reused).ok());
    QVERIFY(Reparse(quiet, reused).ok());
    QVERIFY(reused.has_response());
    QCOMPARE(reused.response().id(), uint64_t{10});
    QVERIFY(reused.response().error_message().empty());
    QVERIFY(!reused.response().has_load());

    // A body that is not a frame still fails, and an empty one still carries no message.
    QVERIFY(Reparse(full, reused).ok());
    QCOMPARE(ParseFrameBody("", 0, reused).code(), Code::kProtocolError);
    QVERIFY(Reparse(full, reused).ok());
    const std::string garbage = "\x1a\xff\xff";
    QCOMPARE(ParseFrameBody(garbage.data(), garbage.size(), reused).code(), Code::kProtocolError);
  }

  void outboxWritesFramesQueuedDuringAWriteTogether() {
    wire::Frame ping;
    ping.mutable_ping()->set_id(1);
    const std::string one = EncodeFrame(ping);
    internal::FrameOutbox outbox;
    QVERIFY(outbox.empty());
    QVERIFY(outbox.StartBatch() == nullptr);
    outbox.Append(ping);
    const std::string* first = outbox.StartBatch();
    QVERIFY(first != nullptr);
    QCOMPARE(*first, one);
    outbox.Append(ping);
    outbox.Append(ping);
    QVERIFY(outbox.StartBatch() == nullptr);  // One write at a time.
    QVERIFY(!outbox.empty());
    outbox.FinishBatch();
    const std::string* second = outbox.StartBatch();
    QVERIFY(second != nullptr);
    QCOMPARE(*second, one + one);
    outbox.FinishBatch();
    QVERIFY(outbox.empty());
  }

  void readBuffersKeepUnreadBytesWhenMovedOrGrown() {
    internal::FrameReadBuffers buffers;
    buffers.Reserve(8);
    QVERIFY(buffers.free_bytes() >= 8);
    std::memcpy(buffers.free_begin(), "abcdef", 6);
    buffers.Commit(6);
    buffers.Consume(2);
    QCOMPARE(std::string(buffers.data(), buffers.buffered()), std::string("cdef"));
    buffers.Reserve(buffers.free_bytes() + 1);  // Moves the bytes to the front, or grows.
    QCOMPARE(std::string(buffers.data(), buffers.buffered()), std::string("cdef"));
    buffers.Reserve(1 << 20);  // Grows past what is kept.
    QVERIFY(buffers.free_bytes() >= size_t{1} << 20);
    QCOMPARE(std::string(buffers.data(), buffers.buffered()), std::string("cdef"));
    buffers.Consume(4);
    QCOMPARE(buffers.buffered(), size_t{0});
    QCOMPARE(buffers.free_bytes(), size_t{0});  // The large storage was let go.
  }

  void lengthIsBigEndian() {
    const unsigned char header[] = {0x01, 0x02, 0x03, 0x04};
    QCOMPARE(DecodeFrameLength(header), 0x01020304u);
  }

  void oversizedLengthIsRejectedBeforeAllocation() {
    QVERIFY(CheckFrameLength(kDefaultMaxFrameBytes, kDefaultMaxFrameBytes).ok());
    const Status status = CheckFrameLength(kDefaultMaxFrameBytes + 1, kDefaultMaxFrameBytes);
    QCOMPARE(status.code(), Code::kProtocolError);
    QVERIFY(status.message().find("exceeds the limit") != std::string::npos);
  }

  void garbageAndEmptyBodiesAreMalformed() {
    wire::Frame parsed;
    const std::string garbage(12, '\xff');
    QCOMPARE(ParseFrameBody(garbage.data(), garbage.size(), parsed).code(), Code::kProtocolError);
    QCOMPARE(ParseFrameBody("", 0, parsed).code(), Code::kProtocolError);  // No message in it.
  }

  void retryableCodesAreOnlyServerSideTrouble() {
    QVERIFY(IsRetryable(Code::kUnavailable));
    QVERIFY(IsRetryable(Code::kLameDuck));
    QVERIFY(!IsRetryable(Code::kNotFound));
    QVERIFY(!IsRetryable(Code::kDeadlineExceeded));
    QVERIFY(!IsRetryable(Code::kPoolExhausted));
    QCOMPARE(Status(Code::kLameDuck, "draining").ToString(), std::string("LAME_DUCK: draining"));
  }

  void endpointsParse() {
    QCOMPARE(*ParseEndpoint("127.0.0.1:7000"), (Endpoint{"127.0.0.1", 7000}));
    QCOMPARE(*ParseEndpoint("[::1]:80"), (Endpoint{"::1", 80}));
    QCOMPARE(ParseEndpoint("[::1]:80")->ToString(), std::string("[::1]:80"));
    QCOMPARE(*ParseEndpoint("localhost:1"), (Endpoint{"localhost", 1}));
    for (const char* bad :
         {"", "host", "host:", ":80", "host:0", "host:65536", "host:12x", "[::1:80"}) {
      QVERIFY2(!ParseEndpoint(bad), bad);
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(FrameTest)
#include "tst_frame.moc"
