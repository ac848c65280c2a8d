# SPDX-License-Identifier: Apache-2.0
# Header-only helpers every part of the console shares (Qt Core only, so models may use them too).
target_sources(railyard_ui_models PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/gui_thread.h
)
