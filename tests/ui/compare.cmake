# SPDX-License-Identifier: Apache-2.0
# The compare window: two real recordings from `railyardctl sim --record` under two policies,
# opened in the window, from the File menu and with `railyard --compare`.
railyard_add_qtest(tst_ui_compare SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_compare.cc
  LIBS railyard_ui railyard_trace TIMEOUT 240)  # Under ASan, beside a build: 31 s.
target_compile_definitions(tst_ui_compare PRIVATE RAILYARDCTL="$<TARGET_FILE:railyardctl>"
  RAILYARD="$<TARGET_FILE:railyard>"
  RAILYARD_SCENARIOS="${PROJECT_SOURCE_DIR}/resources/scenarios"
  SCREENSHOT_DIR="${RAILYARD_SCREENSHOT_DIR}" RAILYARD_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
add_dependencies(tst_ui_compare railyardctl railyard)
