// SPDX-License-Identifier: Apache-2.0
#include "core/node/telemetry.h"

namespace railyard::node {

void FillStorage(const storage::Stats& stats, admin::StorageStats* out) {
  for (const storage::IndexStats& index : stats.indexes) {
    admin::IndexInfo* i = out->add_indexes();
    i->set_id(index.id);
    i->set_entries(index.entries);
    i->set_bytes(index.bytes);
    i->set_created_unix_ms(UnixMillis(index.created));
    i->set_bloom_bytes(index.bloom_bytes);
    i->set_bloom_pages(index.bloom_pages);
    i->set_measured_false_positive_rate(index.measured_false_positive_rate);
    i->set_p_no(index.p_no);
  }
  for (const storage::CompactionStats& compaction : stats.compactions) {
    admin::CompactionInfo* c = out->add_compactions();
    for (uint64_t input : compaction.inputs) c->add_inputs(input);
    c->set_output(compaction.output);
    c->set_entries_written(compaction.entries_written);
    c->set_bytes_written(compaction.bytes_written);
    c->set_duration_us(compaction.duration.count());
    c->set_manual(compaction.manual);
    c->set_finished_unix_ms(UnixMillis(compaction.finished));
  }
  admin::DocCache* cache = out->mutable_cache();
  cache->set_budget_bytes(stats.cache.budget_bytes);
  cache->set_bytes(stats.cache.bytes);
  cache->set_entries(stats.cache.entries);
  cache->set_hits(stats.cache.hits);
  cache->set_misses(stats.cache.misses);
  cache->set_invalidations(stats.cache.invalidations);
  out->set_memtable_entries(stats.memtable_entries);
  out->set_memtable_capacity(stats.memtable_capacity);
  out->set_index_entry_writes(stats.index_entry_writes);
  for (const storage::BloomPageStats& page : stats.bloom_pages) {
    admin::BloomPage* p = out->add_bloom_pages();
    p->set_index(page.index);
    p->set_page(page.page);
    p->set_recent_requests(page.recent_requests);
    p->set_p_no(page.p_no);
    p->set_usefulness(page.usefulness);
    p->set_resident(page.resident);
  }
  out->set_bloom_budget_bytes(stats.bloom_budget_bytes);
  out->set_bloom_resident_bytes(stats.bloom_resident_bytes);
  out->set_reads(stats.reads);
  out->set_writes(stats.writes);
  out->set_deletes(stats.deletes);
  out->set_write_stalls(stats.write_stalls);
  out->set_stall_time_us(stats.stall_time.count());
  out->set_segment_bytes(stats.segment_bytes);
  out->set_dead_byte_share(stats.dead_byte_share);
  out->set_corruptions_seen(stats.corruptions_seen);
  out->set_writes_refused(stats.writes_refused);
  out->set_flushes(stats.flushes);
  out->set_compactions_done(stats.compactions_done);
  out->set_bytes_compacted(stats.bytes_compacted);
  out->set_bloom_negatives(stats.bloom_negatives);
  out->set_wal_bytes(stats.wal_bytes);
}

void FillDocLocation(const storage::DocLocation& where, admin::DocLocation* out) {
  switch (where.source) {
    case storage::DocLocation::Source::kNone:
      out->set_source(admin::DocLocation::SOURCE_NONE);
      break;
    case storage::DocLocation::Source::kMemtable:
      out->set_source(admin::DocLocation::SOURCE_MEMTABLE);
      break;
    case storage::DocLocation::Source::kIndex:
      out->set_source(admin::DocLocation::SOURCE_INDEX);
      out->set_index(where.index_id);
      out->set_bloom_page(where.bloom_page);
      out->set_bloom_page_resident(where.bloom_page_resident);
      break;
  }
  out->set_deleted(where.deleted);
  out->set_position(where.position);
  out->set_size_bytes(where.size);
  out->set_checksum(where.checksum);
  out->set_indexes_skipped(where.indexes_skipped);
}

}  // namespace railyard::node
