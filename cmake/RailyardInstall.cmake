# SPDX-License-Identifier: Apache-2.0
# Install rules (COMPONENT dev) for the libraries a service owner embeds: the docstore engine
# (Railyard::storage) and the Boxcar runtime (Railyard::rpc, with base, balance, proto and asio
# under it), their public headers under include/railyard/, a CMake package (find_package(Railyard))
# and railyard.pc. Included last from the top-level CMakeLists.txt, once every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(railyard_exported storage base balance rpc proto asio)
foreach(name ${railyard_exported})
  set_target_properties(railyard_${name} PROPERTIES EXPORT_NAME ${name})
  add_library(Railyard::${name} ALIAS railyard_${name})  # The same names inside the tree.
  list(APPEND railyard_exported_targets railyard_${name})
endforeach()

install(TARGETS ${railyard_exported_targets}
  EXPORT RailyardTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(railyard_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Railyard)
install(EXPORT RailyardTargets NAMESPACE Railyard:: DESTINATION ${railyard_cmake_dir} COMPONENT dev)

# railyard/version.h from project(VERSION).
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in ${PROJECT_BINARY_DIR}/include/railyard/version.h
  @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/include/railyard/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/railyard COMPONENT dev)

# The public headers are these and whatever they include, found when installing
# (cmake/RailyardInstallHeaders.cmake), so a new include cannot be left out. In the tree they
# include each other as "storage/..." and "core/..."; installed, as "railyard/storage/...", so that
# only include/ is on the search path and nothing collides in /usr/include.
set(railyard_public_headers storage/docstore.h core/rpc/client.h core/rpc/server.h core/rpc/signals.h)
install(CODE "
  set(RAILYARD_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(RAILYARD_PUBLIC_HEADERS \"${railyard_public_headers}\")
  set(RAILYARD_STAGING_DIR \"${PROJECT_BINARY_DIR}/install-headers\")
  set(RAILYARD_INCLUDE_DESTINATION \"${CMAKE_INSTALL_INCLUDEDIR}\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/RailyardInstallHeaders.cmake\")"
  COMPONENT dev)
# The wire contract: generated headers (included as "railyard/rpc.pb.h") and the .proto files.
install(DIRECTORY ${PROJECT_BINARY_DIR}/proto/railyard/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/railyard
  COMPONENT dev FILES_MATCHING PATTERN "*.pb.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/proto/railyard/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/railyard
  COMPONENT dev FILES_MATCHING PATTERN "*.proto")

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/RailyardConfig.cmake.in
  ${PROJECT_BINARY_DIR}/RailyardConfig.cmake INSTALL_DESTINATION ${railyard_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RailyardConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RailyardConfig.cmake ${PROJECT_BINARY_DIR}/RailyardConfigVersion.cmake
  DESTINATION ${railyard_cmake_dir} COMPONENT dev)

# railyard.pc finds its prefix from where it lies, so the tree can be installed anywhere.
file(RELATIVE_PATH railyard_pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/railyard.pc.in ${PROJECT_BINARY_DIR}/railyard.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/railyard.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT dev)
