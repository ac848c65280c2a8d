# SPDX-License-Identifier: Apache-2.0
# Comparing two recordings on one time axis: their series loaded whole on a loader thread, the
# summary with B/A ratios, the CSV export, the stacked plots and the compare window.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/recording_series.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare_summary.cc
  ${CMAKE_CURRENT_LIST_DIR}/recording_loader.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare_csv.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare_plots.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare_window.cc
)
