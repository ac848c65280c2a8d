# SPDX-License-Identifier: Apache-2.0
# Replication: the updater and replica table, and each replica's lag over time.
target_sources(railyard_ui_models PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/replication_model.h
  ${CMAKE_CURRENT_LIST_DIR}/replication_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/replication_lag_model.h
  ${CMAKE_CURRENT_LIST_DIR}/replication_lag_model.cc
)
