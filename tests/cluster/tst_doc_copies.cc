// SPDX-License-Identifier: Apache-2.0
// cluster::CompareCopies, the one verdict railyardctl get --all-nodes and the console show for each
// node's copy of a document, over the cases that real processes reach only by chance (an entry in
// the updater's open block, a tombstone compacted away, copies that differ). The verdicts on real
// processes under a kill and a cut: tests/e2e/tst_doc_copies.cc.
#include <QTest>

#include "core/cluster/admin_methods.h"
#include "core/cluster/doc_copies.h"
#include "tests/support/qtest_main.h"

using namespace railyard;
using cluster::CopyVerdict;

namespace {

cluster::NodeCopy CopyAt(const char* node, admin::DocstoreRole role, uint64_t position,
                         uint64_t applied, uint64_t checksum = 7, bool deleted = false) {
  cluster::NodeCopy copy;
  copy.node = node;
  admin::DocLocation& l = copy.location;
  l.set_role(role);
  l.set_applied_position(applied);
  if (position > 0) {
    l.set_source(admin::DocLocation::SOURCE_MEMTABLE);
    l.set_position(position);
    l.set_deleted(deleted);
    if (!deleted) {
      l.set_checksum(checksum);
      l.set_size_bytes(100);
    }
  }
  return copy;
}

}  // namespace

class DocCopiesVerdictTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void verdicts() {
    // The updater's newest write is still in its open block: past its own applied position.
    std::vector<cluster::NodeCopy> copies = {
        CopyAt("u", admin::DOCSTORE_UPDATER, 500, 499),
        CopyAt("r1", admin::DOCSTORE_REPLICA, 500, 520),
        CopyAt("r2", admin::DOCSTORE_REPLICA, 300, 450),     // An older entry, not applied 500.
        CopyAt("r3", admin::DOCSTORE_REPLICA, 0, 200),       // None yet.
        CopyAt("r4", admin::DOCSTORE_REPLICA, 500, 600, 8),  // The same position, other bytes.
        CopyAt("r5", admin::DOCSTORE_REPLICA, 300, 600),     // Applied 500 yet holds the older one.
    };
    cluster::NodeCopy unreachable;
    unreachable.node = "r6";
    unreachable.status = {rpc::Code::kUnavailable, "cannot reach"};
    copies.push_back(unreachable);
    cluster::NodeCopy load_client;
    load_client.node = "load";
    load_client.status = {rpc::Code::kFailedPrecondition,
                          std::string("load ") + cluster::admin_methods::kNoDocumentStore};
    copies.push_back(load_client);
    cluster::NodeCopy starting;
    starting.node = "r7";
    starting.status = {rpc::Code::kFailedPrecondition, "the node is starting (opening its store)"};
    copies.push_back(starting);
    const cluster::CopyComparison c = cluster::CompareCopies(copies);
    QCOMPARE(c.newest_position, uint64_t{500});
    QVERIFY(!c.newest_deleted);
    const std::vector<CopyVerdict> expected = {
        CopyVerdict::kNewest,  CopyVerdict::kNewest,  CopyVerdict::kBehind,
        CopyVerdict::kBehind,  CopyVerdict::kDiffers, CopyVerdict::kDiffers,
        CopyVerdict::kUnknown, CopyVerdict::kNoStore, CopyVerdict::kUnknown};
    QVERIFY(c.verdicts == expected);
  }

  void theUpdatersCopyIsTheReference() {
    // Two copies at the newest position differ: the updater's is the one the others are held to,
    // whichever was asked first.
    const cluster::CopyComparison c =
        cluster::CompareCopies({CopyAt("r", admin::DOCSTORE_REPLICA, 500, 500, 8),
                                CopyAt("u", admin::DOCSTORE_UPDATER, 500, 500, 7)});
    QVERIFY((c.verdicts == std::vector{CopyVerdict::kDiffers, CopyVerdict::kNewest}));
  }

  void deletionsAndAbsence() {
    // A tombstone that a compaction dropped leaves no entry: that agrees with a newest deletion.
    cluster::CopyComparison c =
        cluster::CompareCopies({CopyAt("u", admin::DOCSTORE_UPDATER, 900, 900, 0, true),
                                CopyAt("r1", admin::DOCSTORE_REPLICA, 0, 950),
                                CopyAt("r2", admin::DOCSTORE_REPLICA, 0, 800)});
    QVERIFY(c.newest_deleted);
    QVERIFY((c.verdicts ==
             std::vector{CopyVerdict::kNewest, CopyVerdict::kNewest, CopyVerdict::kBehind}));
    QCOMPARE(
        cluster::ChecksumText(CopyAt("u", admin::DOCSTORE_UPDATER, 900, 900, 0, true).location),
        std::string("-"));

    c = cluster::CompareCopies({CopyAt("u", admin::DOCSTORE_UPDATER, 0, 900),
                                CopyAt("r", admin::DOCSTORE_REPLICA, 0, 10)});
    QCOMPARE(c.newest_position, uint64_t{0});
    QVERIFY((c.verdicts == std::vector{CopyVerdict::kAbsent, CopyVerdict::kAbsent}));
    QCOMPARE(std::string(cluster::EntryKindName(admin::DocLocation())), std::string("none"));
  }

  void words() {
    admin::DocLocation l;
    l.set_source(admin::DocLocation::SOURCE_INDEX);
    l.set_index(12);
    l.set_bloom_page(3);
    l.set_bloom_page_resident(true);
    l.set_checksum(0xabc);
    l.set_position(5);
    QCOMPARE(cluster::AnsweredBy(l), std::string("index 12, Bloom page 3 (resident)"));
    QCOMPARE(cluster::ChecksumText(l), std::string("0000000000000abc"));
    QCOMPARE(std::string(cluster::EntryKindName(l)), std::string("document"));
    l.set_source(admin::DocLocation::SOURCE_MEMTABLE);
    QCOMPARE(cluster::AnsweredBy(l), std::string("memory"));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DocCopiesVerdictTest)
#include "tst_doc_copies.moc"
