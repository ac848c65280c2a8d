# SPDX-License-Identifier: Apache-2.0
# Per-node storage and throughput views: compaction sets, Bloom pages, live throughput.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/index_stack_widget.h
  ${CMAKE_CURRENT_LIST_DIR}/index_stack_widget.cc
  ${CMAKE_CURRENT_LIST_DIR}/compaction_view.h
  ${CMAKE_CURRENT_LIST_DIR}/compaction_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/bloom_view.h
  ${CMAKE_CURRENT_LIST_DIR}/bloom_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/throughput_view.h
  ${CMAKE_CURRENT_LIST_DIR}/throughput_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/throughput_graphs.h
  ${CMAKE_CURRENT_LIST_DIR}/throughput_graphs.cc
  ${CMAKE_CURRENT_LIST_DIR}/cached_legend_item.h
  ${CMAKE_CURRENT_LIST_DIR}/cached_legend_item.cc
  ${CMAKE_CURRENT_LIST_DIR}/hairline_graph.h
  ${CMAKE_CURRENT_LIST_DIR}/hairline_graph.cc
  ${CMAKE_CURRENT_LIST_DIR}/time_window.h
  ${CMAKE_CURRENT_LIST_DIR}/time_window.cc
  ${CMAKE_CURRENT_LIST_DIR}/plot_crosshair.h
  ${CMAKE_CURRENT_LIST_DIR}/plot_crosshair.cc
  ${CMAKE_CURRENT_LIST_DIR}/plot_event_marks.h
  ${CMAKE_CURRENT_LIST_DIR}/plot_event_marks.cc
  ${CMAKE_CURRENT_LIST_DIR}/throughput_marks.h
  ${CMAKE_CURRENT_LIST_DIR}/throughput_marks.cc
  ${CMAKE_CURRENT_LIST_DIR}/time_axis_drag.h
  ${CMAKE_CURRENT_LIST_DIR}/time_axis_drag.cc
  ${CMAKE_CURRENT_LIST_DIR}/time_range_dialog.h
  ${CMAKE_CURRENT_LIST_DIR}/time_range_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/recording_state_changes.h
  ${CMAKE_CURRENT_LIST_DIR}/recording_state_changes.cc
)
