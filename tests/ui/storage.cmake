# SPDX-License-Identifier: Apache-2.0
# Per-node storage and throughput: models, views and actions against real nodes on loopback.
add_library(railyard_ui_storage_test_support STATIC ${CMAKE_CURRENT_LIST_DIR}/storage_test_node.cc)
set_target_properties(railyard_ui_storage_test_support PROPERTIES AUTOMOC OFF)
target_link_libraries(railyard_ui_storage_test_support PUBLIC railyard_node railyard_ui_models Qt6::Core)
railyard_warnings(railyard_ui_storage_test_support)

# Under ASan, beside the fuzz and TSan builds with two suites at a time, these two took 3.5 times
# what they take alone (35 s against 10 s, 19.5 s against 5.3 s; CI's cold run of 2026-11-29):
# their timeouts leave that a quarter.
railyard_add_qtest(tst_ui_storage_models SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_storage_models.cc
  LIBS railyard_ui_storage_test_support railyard_ui_models railyard_trace TIMEOUT 240)

railyard_add_qtest(tst_ui_storage_views SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_storage_views.cc
  LIBS railyard_ui_storage_test_support railyard_ui TIMEOUT 120)

railyard_add_qtest(tst_ui_actions SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_actions.cc
  LIBS railyard_ui_storage_test_support railyard_ui TIMEOUT 120)

railyard_add_qtest(tst_ui_compaction_view SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_compaction_view.cc
  LIBS railyard_ui_storage_test_support railyard_ui TIMEOUT 120)

railyard_add_qtest(tst_ui_bloom_view SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_bloom_view.cc
  LIBS railyard_ui TIMEOUT 60)

railyard_add_qtest(tst_ui_throughput_view SOURCES ${CMAKE_CURRENT_LIST_DIR}/tst_throughput_view.cc
  LIBS railyard_ui TIMEOUT 120)

