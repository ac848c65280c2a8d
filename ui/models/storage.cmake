# SPDX-License-Identifier: Apache-2.0
# Per-node storage and throughput models: compaction sets, the document cache, Bloom pages,
# throughput series.
target_sources(railyard_ui_models PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ring_buffer.h
  ${CMAKE_CURRENT_LIST_DIR}/compaction_history_model.h
  ${CMAKE_CURRENT_LIST_DIR}/compaction_history_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/compaction_model.h
  ${CMAKE_CURRENT_LIST_DIR}/compaction_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/doc_cache_figures.h
  ${CMAKE_CURRENT_LIST_DIR}/doc_cache_figures.cc
  ${CMAKE_CURRENT_LIST_DIR}/bloom_model.h
  ${CMAKE_CURRENT_LIST_DIR}/bloom_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/throughput_model.h
  ${CMAKE_CURRENT_LIST_DIR}/past_hole.h
  ${CMAKE_CURRENT_LIST_DIR}/throughput_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/throughput_series.h
  ${CMAKE_CURRENT_LIST_DIR}/throughput_series.cc
)
