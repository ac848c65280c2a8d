# SPDX-License-Identifier: Apache-2.0
# Styling shared by every plot, view and list.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/note_legend_item.h
  ${CMAKE_CURRENT_LIST_DIR}/note_legend_item.cc
  ${CMAKE_CURRENT_LIST_DIR}/plot_style.cc
  ${CMAKE_CURRENT_LIST_DIR}/read_only_table.cc
)
