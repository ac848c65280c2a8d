# The main window, its help dialogs and tab keys, the connect and token dialogs, and the token
# store.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/connect_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/help_dialogs.cc
  ${CMAKE_CURRENT_LIST_DIR}/main_window.cc
  ${CMAKE_CURRENT_LIST_DIR}/tab_navigation.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_dialog.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_store.cc
)
