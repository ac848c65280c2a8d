# SPDX-License-Identifier: Apache-2.0
# The console's data path and cluster-wide views: ClusterState, the overview and slot models,
# live polling against real nodes, replay and recording, the main window, and the app itself.
add_library(railyard_ui_console_fixture STATIC ${CMAKE_CURRENT_LIST_DIR}/console_fixture.cc)
target_include_directories(railyard_ui_console_fixture PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(railyard_ui_console_fixture PUBLIC railyard_trace railyard_proto)
railyard_warnings(railyard_ui_console_fixture)

# Regenerates tests/data/console_small.rec by hand (not a test).
add_executable(make_console_recording ${CMAKE_CURRENT_LIST_DIR}/make_console_recording.cc)
target_link_libraries(make_console_recording PRIVATE railyard_load railyard_trace)
add_dependencies(make_console_recording railyard-node)
railyard_warnings(make_console_recording)
if(RAILYARD_SANITIZE)  # The release build checks that it compiles; no sanitizer stage runs it.
  set_target_properties(make_console_recording PROPERTIES EXCLUDE_FROM_ALL ON)
endif()

railyard_add_qtest(tst_ui_cluster_state SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_cluster_state.cc
  LIBS railyard_ui_models TIMEOUT 60)

railyard_add_qtest(tst_ui_cluster_models SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_cluster_models.cc
  LIBS railyard_ui_models railyard_ui_console_fixture TIMEOUT 60)

# The console's alerts over a real node: a drain, a node that stops answering. Under ASan on a
# slow machine, cold, 15 s (25 % of 60): 120 s.
railyard_add_qtest(tst_ui_alerts SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_alerts.cc
  LIBS railyard_ui railyard_node TIMEOUT 120)

railyard_add_qtest(tst_ui_live_source SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_live_source.cc
  LIBS railyard_ui railyard_node railyard_load TIMEOUT 120 COST 13)

# 16.5 s under ASan beside the fuzz build: 120 s keeps it under a quarter.
railyard_add_qtest(tst_ui_replay_record SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_replay_record.cc
  LIBS railyard_ui railyard_ui_console_fixture TIMEOUT 120 DEPENDS railyardctl)
# A simulator's recording comes from `railyardctl sim --record`.

railyard_add_qtest(tst_ui_main_window SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_main_window.cc
  LIBS railyard_ui railyard_node railyard_load TIMEOUT 120)

# `railyard --demo` offscreen, as scripts/demo.sh runs it where there is no display. It and the
# flags' suite start an ASan console again and again: 31-35 s on a slow machine, cold (26-29 %
# of 120), so 240 s.
find_package(Qt6 REQUIRED COMPONENTS Gui)
railyard_add_qtest(tst_ui_railyard_app SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_railyard_app.cc
  LIBS Qt6::Gui TIMEOUT 240 DEPENDS railyard
  DEFINITIONS RAILYARD_CONSOLE_MALLOC="${RAILYARD_CONSOLE_MALLOC}"
  SPLIT demoRunsOffscreenAndWritesAScreenshot helpVersionAndBadFlags)
# Its flags for a view and a Prometheus range (--tab, --window, --at, --prometheus).
railyard_add_qtest(tst_ui_console_flags SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_console_flags.cc
  LIBS Qt6::Gui TIMEOUT 240 DEPENDS railyard)

# The console over TLS: --tls flags and a cluster file's admin_tls, and a CA that does not match.
railyard_add_qtest(tst_ui_tls_console SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_tls_console.cc
  LIBS railyard_ui railyard_tls_admin_fixture TIMEOUT 120)

# Replication: the replication view and its models, the overview's role and lag columns and the
# storage views' cache figures, from generated telemetry, live (frames applied) and replayed.
add_library(railyard_ui_replication_fixture STATIC ${CMAKE_CURRENT_LIST_DIR}/replication_fixture.cc)
target_include_directories(railyard_ui_replication_fixture PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(railyard_ui_replication_fixture PUBLIC railyard_trace railyard_proto)
railyard_warnings(railyard_ui_replication_fixture)

railyard_add_qtest(tst_ui_replication SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_replication.cc
  LIBS railyard_ui railyard_ui_replication_fixture TIMEOUT 60)

# The same against a real updater and replica on loopback, polled live, recorded and replayed.
railyard_add_qtest(tst_ui_replication_live SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_replication_live.cc
  LIBS railyard_ui railyard_node TIMEOUT 120)

# Node health that explains itself: states with reasons, tooltips, grey last-known figures, a
# refused token that stops polling, Edit token and Remove node (real nodes, railyardctl).
railyard_add_qtest(tst_ui_node_health SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_node_health.cc
  LIBS railyard_ui railyard_node spdlog::spdlog TIMEOUT 120 DEPENDS railyardctl)

# The request-flow model and view: generated frames (pools, slot tables, a drain, a replay seek),
# screenshots, and real nodes with a real Boxcar client.
railyard_add_qtest(tst_ui_flow SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_flow.cc
  LIBS railyard_ui railyard_ui_console_fixture railyard_node railyard_load TIMEOUT 120
  DEPENDS railyardctl)
# The Slots tab: matrix view, side panel, totals, marks, sorting; generated frames and replay.
railyard_add_qtest(tst_ui_slot_matrix SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_slot_matrix.cc
  LIBS railyard_ui railyard_ui_console_fixture TIMEOUT 60)

# Clients as rows of their own: cluster sums count served requests once, the Overview's client
# rows and "—" without traffic (a real node and load client, and generated frames).
railyard_add_qtest(tst_ui_client_rows SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_client_rows.cc
  LIBS railyard_ui railyard_node railyard_load TIMEOUT 60)

# Habits: the start page, the demo's addresses, launch errors, Add node in a replay, export from
# every tab, small and large windows, accessible names, plots following the palette.
railyard_add_qtest(tst_ui_console_habits SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_console_habits.cc
  LIBS railyard_ui railyard_node railyard_load TIMEOUT 120 DEPENDS railyardctl railyard-node
  COST 15
  SPLIT aKilledDemoNodeRestartsFromTheNodeMenu tablesFitSmallAndLargeWindows)

# The console at 300 nodes x 300 clients: what keeps frames, seeks and long replays cheap.
railyard_add_qtest(tst_ui_console_scale SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_console_scale.cc
  LIBS railyard_ui railyard_ui_console_fixture TIMEOUT 60)
