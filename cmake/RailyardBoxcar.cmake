# SPDX-License-Identifier: Apache-2.0
# railyard_generate_boxcar(TARGET target PROTOS a.proto... [IMPORT_DIRS dir...] [NO_PROTOBUF])
#
# Runs protoc-gen-boxcar over PROTOS and adds the typed Boxcar code (<name>.boxcar.h and .cc: per
# service a Service to implement, Register, and a Stub) to `target`, with protobuf's own
# <name>.pb.h and .pb.cc unless NO_PROTOBUF says another target has them. Generated files go to
# the current binary folder, which becomes one of the target's PUBLIC include folders, so a
# program includes "<name>.boxcar.h" with the path its .proto has under its import folder.
# IMPORT_DIRS (default: the current source folder) are protoc's -I; Railyard's own .proto files
# (railyard/boxcar_options.proto) are always found. The target must link Railyard::rpc (or
# Railyard::rpc_shared). docs/embedding.md walks through a first service.
#
# Installed with the CMake package (find_package(Railyard) includes this file); inside Railyard's
# tree the same function runs the plugin just built.
function(railyard_generate_boxcar)
  cmake_parse_arguments(arg "NO_PROTOBUF;IN_RAILYARD_TREE" "TARGET;PLUGIN" "PROTOS;IMPORT_DIRS" ${ARGN})
  if(NOT arg_TARGET OR NOT arg_PROTOS)
    message(FATAL_ERROR "railyard_generate_boxcar: TARGET and PROTOS are required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "railyard_generate_boxcar: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  # PLUGIN and IN_RAILYARD_TREE are for Railyard's own tree, whose headers are not under railyard/.
  if(NOT arg_PLUGIN)
    set(arg_PLUGIN Railyard::protoc-gen-boxcar)
  endif()
  set(runtime_include "railyard/")
  if(arg_IN_RAILYARD_TREE)
    set(runtime_include "")
  endif()
  if(NOT arg_IMPORT_DIRS)
    set(arg_IMPORT_DIRS ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(import_dirs "")
  foreach(dir IN LISTS arg_IMPORT_DIRS)
    get_filename_component(dir ${dir} ABSOLUTE)
    list(APPEND import_dirs ${dir})
  endforeach()
  list(APPEND import_dirs ${RAILYARD_PROTO_DIR} ${Protobuf_INCLUDE_DIRS})
  list(REMOVE_DUPLICATES import_dirs)
  set(include_args "")
  foreach(dir IN LISTS import_dirs)
    list(APPEND include_args -I${dir})
  endforeach()

  set(out ${CMAKE_CURRENT_BINARY_DIR})
  set(outputs "")
  foreach(proto IN LISTS arg_PROTOS)
    get_filename_component(absolute ${proto} ABSOLUTE)
    set(relative "")
    foreach(dir IN LISTS import_dirs)
      file(RELATIVE_PATH candidate ${dir} ${absolute})
      if(NOT candidate MATCHES "^\\.\\./")
        set(relative ${candidate})
        break()
      endif()
    endforeach()
    if(NOT relative)
      message(FATAL_ERROR "railyard_generate_boxcar: ${proto} is under none of IMPORT_DIRS")
    endif()
    string(REGEX REPLACE "\\.proto$" "" base ${relative})
    set(generated ${out}/${base}.boxcar.h ${out}/${base}.boxcar.cc)
    # A sanitized plugin (a sanitizer build of Railyard) must not fail the build over leaks in
    # libprotoc at exit.
    add_custom_command(OUTPUT ${generated}
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
              $<TARGET_FILE:protobuf::protoc>
              --plugin=protoc-gen-boxcar=$<TARGET_FILE:${arg_PLUGIN}>
              --boxcar_out=${out} "--boxcar_opt=runtime_include=${runtime_include}"
              ${include_args} ${absolute}
      DEPENDS ${absolute} ${arg_PLUGIN}
      COMMENT "protoc-gen-boxcar: ${relative}"
      VERBATIM)
    list(APPEND outputs ${generated})
  endforeach()
  # Generated files stay out of unity batches, as protobuf's own.
  set_source_files_properties(${outputs} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  target_sources(${arg_TARGET} PRIVATE ${outputs})
  target_include_directories(${arg_TARGET} PUBLIC $<BUILD_INTERFACE:${out}>)
  if(NOT arg_NO_PROTOBUF)
    protobuf_generate(TARGET ${arg_TARGET} PROTOS ${arg_PROTOS} IMPORT_DIRS ${import_dirs}
      PROTOC_OUT_DIR ${out})
  endif()
endfunction()
