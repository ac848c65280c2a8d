# SPDX-License-Identifier: Apache-2.0
# The compare window: two real recordings from `railyardctl sim --record` under two policies,
# opened in the window, from the File menu and with `railyard --compare`.
railyard_add_qtest(tst_ui_compare SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_compare.cc
  LIBS railyard_ui railyard_trace TIMEOUT 240 DEPENDS railyardctl railyard)  # Under ASan, beside a build: 31 s.
