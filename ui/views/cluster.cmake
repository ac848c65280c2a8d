# SPDX-License-Identifier: Apache-2.0
# Cluster-wide views: the overview table, the slot matrix, the request flow, the alerts, and the
# replay timeline.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/alerts_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/incident_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/overview_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/flow_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/flow_legend.cc
  ${CMAKE_CURRENT_LIST_DIR}/sprite_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_parts.cc
  ${CMAKE_CURRENT_LIST_DIR}/timeline_slider.cc
  ${CMAKE_CURRENT_LIST_DIR}/timeline_widget.cc
)
