# SPDX-License-Identifier: Apache-2.0
# The main window, its alert notifications, its start page, help dialogs and tab keys, the connect, token and demo
# dialogs, Find document, launch error boxes, view export, column fitting, recent files and
# the Nodes list's view; the command line that opens a view again (view_link.h).
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/alert_notifier.cc
  ${CMAKE_CURRENT_LIST_DIR}/column_fit.cc
  ${CMAKE_CURRENT_LIST_DIR}/connect_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/demo_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/find_document_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/rolling_restart_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/help_dialogs.cc
  ${CMAKE_CURRENT_LIST_DIR}/launch_error.cc
  ${CMAKE_CURRENT_LIST_DIR}/main_window.cc
  ${CMAKE_CURRENT_LIST_DIR}/one_column_list_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/prometheus_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/recent_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/start_page.cc
  ${CMAKE_CURRENT_LIST_DIR}/tab_navigation.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/view_export.cc
  ${CMAKE_CURRENT_LIST_DIR}/view_link.cc
)
