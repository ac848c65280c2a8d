# SPDX-License-Identifier: Apache-2.0
# Replication view: the updater and replica table and the lag plot.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/replication_view.h
  ${CMAKE_CURRENT_LIST_DIR}/replication_view.cc
)
