// Wire framing and endpoint parsing.
#include <QTest>

#include "core/rpc/endpoint.h"
#include "core/rpc/frame.h"
#include "railyard/rpc.pb.h"

using namespace railyard::rpc;

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

QTEST_GUILESS_MAIN(FrameTest)
#include "tst_frame.moc"
