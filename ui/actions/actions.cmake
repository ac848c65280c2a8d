# SPDX-License-Identifier: Apache-2.0
# Operator actions (drain, undrain, flush, compact) and the console's audit log.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/audit_log.h
  ${CMAKE_CURRENT_LIST_DIR}/audit_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/audit_log_model.h
  ${CMAKE_CURRENT_LIST_DIR}/audit_log_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/audit_log_view.h
  ${CMAKE_CURRENT_LIST_DIR}/audit_log_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/action_controller.h
  ${CMAKE_CURRENT_LIST_DIR}/action_controller.cc
)
