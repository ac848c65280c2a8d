// SPDX-License-Identifier: Apache-2.0
// Writes the seed corpora under tests/fuzz/corpus/ from the real encoders, so the fuzzers start
// from valid inputs of every kind. Run by hand after a format change:
//   build/release/bin/fuzz_seed_writer tests/fuzz/corpus resources
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/rpc/frame.h"
#include "core/trace/recording_writer.h"
#include "railyard/rpc.pb.h"
#include "storage/bloom.h"
#include "storage/index_file.h"
#include "storage/manifest.h"
#include "storage/segment_block.h"
#include "storage/wal.h"

namespace fs = std::filesystem;
using namespace railyard;

namespace {

void Save(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void Frames(const fs::path& dir) {
  rpc::Frame hello;
  hello.mutable_hello()->set_protocol_version(rpc::kProtocolVersion);
  hello.mutable_hello()->set_client_id(42);
  hello.mutable_hello()->set_client_name("seed");
  rpc::Frame request;
  request.mutable_request()->set_id(7);
  request.mutable_request()->set_method("doc.Get");
  request.mutable_request()->set_payload(std::string("\x08\x05", 2));
  request.mutable_request()->set_timeout_us(1000);
  rpc::Frame response;
  response.mutable_response()->set_id(7);
  response.mutable_response()->set_payload("document");
  response.mutable_response()->mutable_load()->set_utilization(0.5);
  int n = 0;
  for (const rpc::Frame* f : {&hello, &request, &response}) {
    std::string bytes;
    rpc::AppendEncodedFrame(*f, bytes);
    Save(dir / ("frame-" + std::to_string(n++)), bytes);
  }
}

// The boxcar_stream target's inputs: a byte that picks the write size, then what a peer sends.
void Streams(const fs::path& dir) {
  rpc::Frame hello;
  hello.mutable_hello()->set_protocol_version(rpc::kProtocolVersion);
  hello.mutable_hello()->set_client_id(42);
  hello.mutable_hello()->set_client_name("seed");
  rpc::Frame echo;
  echo.mutable_request()->set_id(1);
  echo.mutable_request()->set_method("fuzz.Echo");
  echo.mutable_request()->set_payload(std::string(300, 'e'));
  rpc::Frame ping;
  ping.mutable_ping()->set_id(2);
  std::string conversation;
  for (const rpc::Frame* f : {&hello, &echo, &ping, &echo})
    rpc::AppendEncodedFrame(*f, conversation);
  Save(dir / "stream-whole", std::string(1, '\0') + conversation);
  Save(dir / "stream-bytewise", std::string(1, '\1') + conversation);
  Save(dir / "stream-7s", std::string(1, '\7') + conversation);
  std::string cut;
  rpc::AppendEncodedFrame(hello, cut);
  rpc::AppendEncodedFrame(echo, cut);
  cut.resize(cut.size() - 100);  // The request stops mid-body.
  Save(dir / "stream-cut", std::string(1, '\3') + cut);
}

void Storage(const fs::path& corpus, const fs::path& scratch) {
  storage::BlockBuilder block;
  for (uint64_t id = 0; id < 3; ++id)
    block.Add(id, storage::EntryKind::kPut, "document " + std::to_string(id));
  Save(corpus / "segment_block" / "block-3-docs", block.Encode());
  storage::BlockBuilder big;
  for (uint64_t id = 0; id < 40; ++id)
    big.Add(id, storage::EntryKind::kPut, std::string(100, static_cast<char>('a' + id % 26)));
  Save(corpus / "segment_block" / "block-compressed", big.Encode());
  storage::BlockBuilder deletions;  // A replicated delete: the tombstone bitmap.
  deletions.Add(7, storage::EntryKind::kPut, "kept");
  deletions.Add(8, storage::EntryKind::kDelete, {});
  deletions.Add(9, storage::EntryKind::kPut, "also kept");
  Save(corpus / "segment_block" / "block-tombstones", deletions.Encode());

  storage::Env* env = storage::Env::Default();
  storage::IndexFileWriter index;
  const fs::path index_path = scratch / "index.idx";
  if (index.Open(env, index_path.string()).ok()) {
    for (uint64_t id = 0; id < 300; ++id) {
      storage::IndexEntry entry;
      entry.id = id * 3;
      entry.value.address = {0, static_cast<uint32_t>(id * 64), 0};
      (void)index.Add(entry);
    }
    (void)index.Finish(std::chrono::system_clock::now());
  }
  Save(corpus / "index_file" / "index-300", Slurp(index_path));

  // Small pages keep the seed small: 200 keys in 64-byte pages.
  storage::BloomBuilder bloom(storage::ShapeFor(200, 0.01, 64));
  for (uint64_t id = 0; id < 200; ++id) bloom.Add(id * 3);
  const fs::path bloom_path = scratch / "filter.bloom";
  if (bloom.WriteTo(env, bloom_path.string()).ok()) {
    Save(corpus / "bloom_file" / "bloom-200", Slurp(bloom_path));
  }

  const fs::path wal_path = scratch / "wal-000001.log";
  {
    storage::WalWriter wal;
    if (storage::WalWriter::Create(env, wal_path.string(), 1, &wal).ok()) {
      for (uint64_t r = 0; r < 3; ++r) {
        std::vector<storage::WalOp> ops(2);
        ops[0] = {r * 2, storage::EntryKind::kPut, {0, 0, static_cast<uint16_t>(r)}, "doc"};
        ops[1] = {r * 2 + 1, storage::EntryKind::kDelete, {}, {}};
        (void)wal.Append(ops);
      }
    }
  }
  Save(corpus / "wal_replay" / "wal-3-records", Slurp(wal_path));

  storage::Manifest manifest;
  manifest.next_file = 9;
  manifest.wal_start = 7;
  manifest.durable = {1, 4096};
  manifest.indexes = {{6, 1000}, {3, 4000}};
  Save(corpus / "manifest" / "manifest", storage::EncodeManifest(manifest));
}

void Recording(const fs::path& corpus, const fs::path& scratch) {
  const fs::path path = scratch / "seed.ryrec";
  std::unique_ptr<trace::RecordingWriter> writer;
  if (!trace::RecordingWriter::Create(path.string(), {}, &writer).ok()) return;
  for (int i = 0; i < 2; ++i) {
    admin::Telemetry t;
    t.set_sequence(i);
    t.set_unix_ms(1700000000000 + i * 1000);
    t.set_node("node0");
    t.set_state(admin::NODE_SERVING);
    (void)writer->AppendSnapshot("node0", t);
  }
  (void)writer->AppendEvent(1700000000500, "node0", "drain", "by seed");
  (void)writer->Close();
  Save(corpus / "recording" / "recording-2-snapshots", Slurp(path));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR RESOURCES_DIR\n", argv[0]);
    return 2;
  }
  const fs::path corpus(argv[1]);
  const fs::path resources(argv[2]);
  const fs::path scratch = fs::temp_directory_path() / "railyard-seed-writer";
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  Frames(corpus / "frame");
  Streams(corpus / "boxcar_stream");
  Storage(corpus, scratch);
  Recording(corpus, scratch);
  for (const char* name : {"railyard-node.textproto", "cluster.textproto"}) {
    Save(corpus / "config" / name, Slurp(resources / name));
  }
  fs::remove_all(scratch);
  std::printf("seeds written under %s\n", corpus.c_str());
  return 0;
}
