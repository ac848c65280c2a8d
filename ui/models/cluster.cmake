# SPDX-License-Identifier: Apache-2.0
# Cluster-wide state and the overview, slot-allocation, request-flow and alert models.
target_sources(railyard_ui_models PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/alert_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/incident_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/cluster_state.cc
  ${CMAKE_CURRENT_LIST_DIR}/natural_order.cc
  ${CMAKE_CURRENT_LIST_DIR}/palette.cc
  ${CMAKE_CURRENT_LIST_DIR}/overview_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/flow_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_columns.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_display.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_client_detail.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_sort.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_matrix_totals.cc
)
