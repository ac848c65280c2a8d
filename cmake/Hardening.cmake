# SPDX-License-Identifier: Apache-2.0
# Debian's hardening flags on everything we build and ship: the stack protector, _FORTIFY_SOURCE,
# format-string checks, and full RELRO (relro + bindnow). They are taken from dpkg-buildflags with
# hardening=+all, so they follow Debian's own definition, but only the hardening ones: its -g, -O2
# and -ffile-prefix-map would change what our build types mean and what ccache can share between
# clones. Off in sanitizer and fuzz builds (never shipped; _FORTIFY_SOURCE hides accesses from
# ASan's own checks) and in Debug (_FORTIFY_SOURCE needs optimisation and warns without it).
# tests/installer/package_test.sh fails on any lintian hardening tag.
option(RAILYARD_HARDENING "Build with Debian's hardening flags (dpkg-buildflags)" ON)
if(NOT RAILYARD_HARDENING OR RAILYARD_SANITIZE OR RAILYARD_FUZZ)
  return()
endif()

set(railyard_hardening_fallback_compile -fstack-protector-strong -Wformat -Werror=format-security
    -D_FORTIFY_SOURCE=2)
set(railyard_hardening_fallback_link -Wl,-z,relro -Wl,-z,now)
find_program(RAILYARD_DPKG_BUILDFLAGS dpkg-buildflags)
if(RAILYARD_DPKG_BUILDFLAGS)
  set(railyard_hardening_compile "")
  set(railyard_hardening_link "")
  foreach(kind CPPFLAGS CXXFLAGS LDFLAGS)
    execute_process(
      COMMAND ${CMAKE_COMMAND} -E env DEB_BUILD_MAINT_OPTIONS=hardening=+all
              ${RAILYARD_DPKG_BUILDFLAGS} --get ${kind}
      OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "dpkg-buildflags --get ${kind} failed")
    endif()
    separate_arguments(flags UNIX_COMMAND "${flags}")
    foreach(flag IN LISTS flags)
      if(flag MATCHES "^-(fstack-protector|fstack-clash-protection|fcf-protection|D_FORTIFY_SOURCE|Wformat|Werror=format-security|mbranch-protection)")
        list(APPEND railyard_hardening_compile ${flag})
      elseif(flag MATCHES "^-Wl,-z,")
        list(APPEND railyard_hardening_link ${flag})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES railyard_hardening_compile)
else()
  set(railyard_hardening_compile ${railyard_hardening_fallback_compile})
  set(railyard_hardening_link ${railyard_hardening_fallback_link})
endif()
message(STATUS "Hardening: ${railyard_hardening_compile} ${railyard_hardening_link}")
add_compile_options("$<$<NOT:$<CONFIG:Debug>>:${railyard_hardening_compile}>")
add_link_options(${railyard_hardening_link})
