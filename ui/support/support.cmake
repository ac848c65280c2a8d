# SPDX-License-Identifier: Apache-2.0
# Header-only helpers every part of the console shares (Qt Core and Gui, no widgets, so models may
# use them too).
target_sources(railyard_ui_models PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/color_mix.h
  ${CMAKE_CURRENT_LIST_DIR}/gui_thread.h
  ${CMAKE_CURRENT_LIST_DIR}/small_array.h
)
