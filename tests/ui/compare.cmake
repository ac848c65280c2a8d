# SPDX-License-Identifier: Apache-2.0
# The compare window: two real recordings from `railyardctl sim --record` under two policies,
# opened in the window, from the File menu and with `railyard --compare`.
# Under ASan 7-27 s (31 s beside a build); declared late, it was among the ASan suite's last four
# tests in four fresh clones, so its COST starts it among the long ones.
railyard_add_qtest(tst_ui_compare SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_compare.cc
  LIBS railyard_ui railyard_trace TIMEOUT 240 DEPENDS railyardctl railyard COST 10)
