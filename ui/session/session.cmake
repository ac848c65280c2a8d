# SPDX-License-Identifier: Apache-2.0
# What the console watches apart from any window: the session (state, sources, recorder, tokens,
# actions, mode), the token store and plain error wording.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/plain_reason.cc
  ${CMAKE_CURRENT_LIST_DIR}/session.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_store.cc
)
