# The main window, the connect and token dialogs, and the token store.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/connect_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/main_window.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_store.cc
)
