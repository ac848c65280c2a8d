# SPDX-License-Identifier: Apache-2.0
# Where telemetry comes from: live polling on a worker thread, replay of a recording (and of a
# range fetched from Prometheus into one), and the recorder that writes one.
target_sources(railyard_ui PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/history_frames.cc
  ${CMAKE_CURRENT_LIST_DIR}/live_source.cc
  ${CMAKE_CURRENT_LIST_DIR}/prometheus_range.cc
  ${CMAKE_CURRENT_LIST_DIR}/replay_source.cc
  ${CMAKE_CURRENT_LIST_DIR}/recorder.cc
)
