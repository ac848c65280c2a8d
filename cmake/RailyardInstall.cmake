# SPDX-License-Identifier: Apache-2.0
# Install rules for the libraries a service owner embeds: the docstore engine (Railyard::storage),
# the Boxcar runtime (Railyard::rpc, with base, balance, proto and asio under it) and the admin
# service for their own servers (Railyard::admin), each as a
# static archive and as a shared library (Railyard::storage_shared, Railyard::rpc_shared), their
# public headers under include/railyard/, a CMake package (find_package(Railyard)) and pkg-config
# files (railyard.pc links the shared libraries, railyard-static.pc the archives). The shared
# objects are COMPONENT lib (the librailyard0.1 package); everything else is COMPONENT dev.
# Included from the top-level CMakeLists.txt once every library target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# While the major version is 0, every minor release may break the ABI, so it is in the SONAME.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(RAILYARD_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(RAILYARD_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
set(RAILYARD_LIB_PACKAGE librailyard${RAILYARD_SOVERSION})

# node_admin is the admin service a service owner adds to their own server
# (core/node/service_admin.h), with what it links: the typed admin service (services), its client
# side's shared names (cluster), the flight recorder's recordings (trace) and /metrics (http).
set(railyard_compiled storage base balance rpc proto services cluster trace http node_admin)
set(railyard_exported ${railyard_compiled} asio)
foreach(name ${railyard_exported})
  set(export_name ${name})
  if(name STREQUAL node_admin)
    # Railyard::admin, librailyard_admin.a: what it is to a service owner.
    set(export_name admin)
    set_target_properties(railyard_${name} PROPERTIES OUTPUT_NAME railyard_admin)
  endif()
  set_target_properties(railyard_${name} PROPERTIES EXPORT_NAME ${export_name})
  add_library(Railyard::${export_name} ALIAS railyard_${name})  # The same names inside the tree.
  list(APPEND railyard_exported_targets railyard_${name})
endforeach()

# A shared twin of each archive, linked from the archive's own objects (so nothing compiles
# twice), with the twin's dependencies in place of the archive's: railyard_rpc links
# railyard_base, railyard_rpc_shared links railyard_base_shared. RAILYARD_SHARED_LIBS (top-level
# CMakeLists.txt) turns them off.
function(railyard_shared_name item out)
  if(TARGET ${item} AND item MATCHES "^railyard_(.+)$" AND CMAKE_MATCH_1 IN_LIST railyard_compiled)
    set(${out} ${item}_shared PARENT_SCOPE)
  else()
    set(${out} ${item} PARENT_SCOPE)
  endif()
endfunction()
set(railyard_shared_targets "")
if(RAILYARD_SHARED_LIBS)
  # The archives' imported dependencies were found in their own folders; they are seen here
  # only once found again.
  find_package(OpenSSL REQUIRED)
  pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
  pkg_check_modules(LIBURING REQUIRED IMPORTED_TARGET liburing)
  pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
  find_package(SQLite3 REQUIRED)
  foreach(name ${railyard_compiled})
    set(archive railyard_${name})
    set(twin railyard_${name}_shared)
    set_target_properties(${archive} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    get_target_property(export_name ${archive} EXPORT_NAME)
    add_library(${twin} SHARED $<TARGET_OBJECTS:${archive}>)
    add_library(Railyard::${export_name}_shared ALIAS ${twin})
    set_target_properties(${twin} PROPERTIES OUTPUT_NAME railyard_${export_name}
      EXPORT_NAME ${export_name}_shared
      VERSION ${PROJECT_VERSION} SOVERSION ${RAILYARD_SOVERSION}
      # Installed outside the loader's folders (a prefix of one's own), librailyard_rpc.so still
      # finds librailyard_base.so beside it.
      INSTALL_RPATH "$ORIGIN")
    target_include_directories(${twin} PUBLIC $<TARGET_PROPERTY:${archive},INTERFACE_INCLUDE_DIRECTORIES>)
    # INTERFACE_LINK_LIBRARIES holds the archive's PUBLIC dependencies and, as $<LINK_ONLY:x>,
    # its PRIVATE ones.
    get_target_property(deps ${archive} INTERFACE_LINK_LIBRARIES)
    foreach(dep IN LISTS deps)
      if(dep MATCHES "^\\$<LINK_ONLY:(.+)>$")
        railyard_shared_name(${CMAKE_MATCH_1} mapped)
        target_link_libraries(${twin} PRIVATE ${mapped})
      else()
        railyard_shared_name(${dep} mapped)
        target_link_libraries(${twin} PUBLIC ${mapped})
      endif()
    endforeach()
    # Every symbol resolved at link time, so a missing dependency fails here, not in a
    # service owner's program. Sanitizers resolve theirs from the executable's runtime.
    if(NOT RAILYARD_SANITIZE)
      target_link_options(${twin} PRIVATE -Wl,--no-undefined)
    endif()
    list(APPEND railyard_shared_targets ${twin})
  endforeach()
  add_custom_target(railyard_shared_libs ALL DEPENDS ${railyard_shared_targets})
endif()

install(TARGETS ${railyard_exported_targets} ${railyard_shared_targets}
  EXPORT RailyardTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# protoc-gen-boxcar, and railyard_generate_boxcar() that runs it (Railyard::protoc-gen-boxcar). A
# build tool protoc starts rather than a command for people, so it lives in libexec/railyard/.
install(TARGETS protoc-gen-boxcar EXPORT RailyardTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/railyard COMPONENT dev)
set(railyard_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Railyard)
install(EXPORT RailyardTargets NAMESPACE Railyard:: DESTINATION ${railyard_cmake_dir} COMPONENT dev)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/RailyardBoxcar.cmake DESTINATION ${railyard_cmake_dir}
  COMPONENT dev)

# railyard/version.h from project(VERSION).
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in ${PROJECT_BINARY_DIR}/include/railyard/version.h
  @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/include/railyard/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/railyard COMPONENT dev)

# The public headers are these and whatever they include, found when installing
# (cmake/RailyardInstallHeaders.cmake), so a new include cannot be left out. In the tree they
# include each other as "storage/..." and "core/..."; installed, as "railyard/storage/...", so that
# only include/ is on the search path and nothing collides in /usr/include.
set(railyard_public_headers storage/docstore.h core/rpc/client.h core/rpc/server.h core/rpc/signals.h
  core/rpc/log_sink.h core/node/service_admin.h)
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

# examples/greeter: a service of one's own with the admin service, built against this package
# (tests/install/example.sh builds the installed copy), where Debian keeps a package's examples.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/greeter
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/librailyard-dev/examples COMPONENT dev)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/RailyardConfig.cmake.in
  ${PROJECT_BINARY_DIR}/RailyardConfig.cmake INSTALL_DESTINATION ${railyard_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RailyardConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RailyardConfig.cmake ${PROJECT_BINARY_DIR}/RailyardConfigVersion.cmake
  DESTINATION ${railyard_cmake_dir} COMPONENT dev)

# railyard.pc finds its prefix from where it lies, so the tree can be installed anywhere.
file(RELATIVE_PATH railyard_pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/railyard-static.pc.in ${PROJECT_BINARY_DIR}/railyard-static.pc
  @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/railyard-static.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT dev)
configure_file(${CMAKE_CURRENT_LIST_DIR}/railyard-admin-static.pc.in
  ${PROJECT_BINARY_DIR}/railyard-admin-static.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/railyard-admin-static.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)
if(RAILYARD_SHARED_LIBS)
  foreach(pc railyard railyard-admin)
    configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
      COMPONENT dev)
  endforeach()
endif()
