# SPDX-License-Identifier: Apache-2.0
# Runs at install time (cmake/RailyardInstall.cmake): installs RAILYARD_PUBLIC_HEADERS and every
# header they include, transitively, from RAILYARD_SOURCE_DIR into <prefix>/include/railyard/,
# with their includes of each other rewritten from "storage/x.h" to "railyard/storage/x.h" (and
# "core/..." alike). A public header that includes any other header of Railyard's (not a generated
# "railyard/*.pb.h") stops the install, since it could not be found from the installed tree.
set(todo ${RAILYARD_PUBLIC_HEADERS})
set(found "")
while(todo)
  list(POP_FRONT todo header)
  list(FIND found ${header} seen)  # Not IN_LIST: an install script has no policy CMP0057.
  if(NOT seen EQUAL -1)
    continue()
  endif()
  list(APPEND found ${header})
  file(STRINGS ${RAILYARD_SOURCE_DIR}/${header} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" included "${line}")
    if(included MATCHES "^(storage|core)/")
      list(APPEND todo ${included})
    elseif(NOT included MATCHES "^railyard/[a-z_]+\\.pb\\.h$")
      message(FATAL_ERROR "${header} includes \"${included}\", which is not installed")
    endif()
  endforeach()
endwhile()

# A folder of its own, since installs may run at once (a test's, and cpack's).
string(RANDOM LENGTH 12 staging_name)
set(staging ${RAILYARD_STAGING_DIR}/${staging_name})
foreach(header IN LISTS found)
  file(READ ${RAILYARD_SOURCE_DIR}/${header} text)
  string(REGEX REPLACE "#include \"(storage|core)/" "#include \"railyard/\\1/" text "${text}")
  file(WRITE ${staging}/railyard/${header} "${text}")
endforeach()
# file(INSTALL) adds DESTDIR and records the files in install_manifest.txt, as install() would.
file(INSTALL ${staging}/railyard DESTINATION ${CMAKE_INSTALL_PREFIX}/${RAILYARD_INCLUDE_DESTINATION})
file(REMOVE_RECURSE ${staging})
