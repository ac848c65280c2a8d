# SPDX-License-Identifier: Apache-2.0
# Precompiled third-party headers. Most of a cold build went into parsing the same few headers in
# every file: QCustomPlot with Qt Widgets (about 9 s a file at -O2), QtTest (5 s), asio (2.3 s),
# spdlog and protobuf (1.5 s each), while the files' own code took a fraction of that (the table
# is in docs/build.md). Each kind of target below shares one precompiled header, built once per
# build folder, so a test that is one file pays for loading it, not for parsing Qt again.
#
# asio/ssl.hpp stays out: it defines a static object that initialises OpenSSL in every program
# whose files include it. Only third-party and standard headers go in (QCustomPlot through ui/views/qcustomplot_include.h,
# which makes it build under QT_NO_KEYWORDS), never Railyard's own code, so a change to our code
# never rebuilds a precompiled header. GCC uses one only where every macro it refers to is defined as
# when it was built, so each kind's users link the same libraries as its owner (which is what
# brings the macros); anything else and GCC parses the headers instead, which -Winvalid-pch
# reports.
#
# ccache (scripts/build.sh) caches the precompiled headers too, given its pch_defines and
# time_macros sloppiness, so a fresh clone gets byte-identical ones and its files hit the cache.
#
# RAILYARD_PCH=OFF builds without them; the fuzz preset does, which checks that every library
# file includes what it uses.
option(RAILYARD_PCH "Precompile the heavy third-party headers (Qt, QCustomPlot, asio, spdlog, protobuf)" ON)

set(RAILYARD_PCH_STD
  <algorithm> <array> <atomic> <chrono> <cmath> <cstdint> <cstdio> <cstring> <deque> <functional>
  <limits> <map> <memory> <mutex> <optional> <random> <set> <span> <string> <string_view> <thread>
  <unordered_map> <utility> <variant> <vector>)
set(RAILYARD_PCH_PROTOBUF
  <google/protobuf/arena.h> <google/protobuf/generated_message_reflection.h>
  <google/protobuf/generated_message_util.h> <google/protobuf/io/coded_stream.h>
  <google/protobuf/message.h> <google/protobuf/repeated_field.h>)
set(RAILYARD_PCH_QT
  <QDateTime> <QHash> <QObject> <QString> <QStringList> <QTimer> <QVector>)
set(RAILYARD_PCH_QT_WIDGETS
  <ui/views/qcustomplot_include.h> <QAbstractTableModel> <QColor> <QComboBox> <QHBoxLayout> <QHeaderView> <QLabel>
  <QPainter> <QPushButton> <QTableView> <QVBoxLayout> <QWidget>)
set(RAILYARD_PCH_QT_TEST <QTest> <QDir> <QFile> <QProcess> <QSignalSpy> <QTemporaryDir>)

# Each kind: its headers, the libraries its owner links (which bring the macros the headers are
# built with) and the ones each user links to have the same macros.
#   core          core/ libraries and the daemons' and railyardctl's own files: asio, spdlog, protobuf
#   test          the QtTest suites outside tests/ui: the same with QtTest
#   models        the console's models (ui/models, no widgets): Qt Core and Gui
#   console       ui/ and the console's main(): Qt Widgets and QCustomPlot (users link railyard_ui
#                 or are it, so they have its Qt modules' macros already)
#   console_test  tests/ui: the console's with QtTest
set(_railyard_pch_core_headers ${RAILYARD_PCH_STD} <asio.hpp> <spdlog/spdlog.h>
  ${RAILYARD_PCH_PROTOBUF})
set(_railyard_pch_core_libs railyard_asio spdlog::spdlog protobuf::libprotobuf)
set(_railyard_pch_core_user_libs ${_railyard_pch_core_libs})
set(_railyard_pch_test_headers ${_railyard_pch_core_headers} ${RAILYARD_PCH_QT} ${RAILYARD_PCH_QT_TEST})
set(_railyard_pch_test_libs ${_railyard_pch_core_libs} Qt6::Core Qt6::Test)
set(_railyard_pch_test_user_libs ${_railyard_pch_test_libs})
set(_railyard_pch_test_definitions QT_NO_KEYWORDS)
set(_railyard_pch_models_headers ${RAILYARD_PCH_STD} ${RAILYARD_PCH_PROTOBUF} ${RAILYARD_PCH_QT}
  <QAbstractTableModel> <QColor>)
set(_railyard_pch_models_libs Qt6::Core Qt6::Gui)
set(_railyard_pch_models_user_libs ${_railyard_pch_models_libs})
set(_railyard_pch_models_definitions QT_NO_KEYWORDS)
set(_railyard_pch_console_headers ${RAILYARD_PCH_STD} ${RAILYARD_PCH_PROTOBUF} ${RAILYARD_PCH_QT}
  ${RAILYARD_PCH_QT_WIDGETS})
set(_railyard_pch_console_libs QCustomPlotQt6::QCustomPlotQt6 qt6keychain)
set(_railyard_pch_console_user_libs)
set(_railyard_pch_console_definitions QT_NO_KEYWORDS)
set(_railyard_pch_console_test_headers ${_railyard_pch_console_headers} ${RAILYARD_PCH_QT_TEST})
set(_railyard_pch_console_test_libs railyard_ui Qt6::Test)
set(_railyard_pch_console_test_user_libs ${_railyard_pch_console_test_libs})
set(_railyard_pch_console_test_definitions QT_NO_KEYWORDS)

set(_railyard_pch_anchor ${CMAKE_BINARY_DIR}/railyard_pch_anchor.cc)
file(WRITE ${_railyard_pch_anchor} "// Owns a precompiled header (cmake/PrecompiledHeaders.cmake); no code.\n")

# railyard_use_pch(TARGET KIND): TARGET's files start from KIND's precompiled header, built once by
# an owner target made on first use. KIND is core, test, models, console or
# console_test.
function(railyard_use_pch target kind)
  if(NOT RAILYARD_PCH)
    return()
  endif()
  if(NOT DEFINED _railyard_pch_${kind}_headers)
    message(FATAL_ERROR "railyard_use_pch: unknown kind '${kind}'")
  endif()
  set(owner railyard_pch_${kind})
  # A header precompiled for position-dependent (PIE) code is invalid in position-independent code
  # and the reverse: a library that also goes into a shared one (cmake/RailyardInstall.cmake) needs
  # its own copy.
  get_target_property(pic ${target} POSITION_INDEPENDENT_CODE)
  if(pic)
    set(owner railyard_pch_${kind}_pic)
  endif()
  if(NOT TARGET ${owner})
    add_library(${owner} OBJECT ${_railyard_pch_anchor})
    if(pic)
      set_target_properties(${owner} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    endif()
    target_link_libraries(${owner} PRIVATE ${_railyard_pch_${kind}_libs})
    target_include_directories(${owner} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${owner} PRIVATE ${_railyard_pch_${kind}_definitions})
    target_precompile_headers(${owner} PRIVATE ${_railyard_pch_${kind}_headers})
    # Users build with these, and -Wpedantic changes a predefined macro (__cpp_runtime_arrays).
    railyard_warnings(${owner})
    if(kind MATCHES "test$" AND CMAKE_BUILD_TYPE STREQUAL "Release")
      target_compile_options(${owner} PRIVATE -O1)  # As the suites' own files (tests/CMakeLists.txt).
    endif()
  endif()
  target_link_libraries(${target} PRIVATE ${_railyard_pch_${kind}_user_libs})
  target_compile_definitions(${target} PRIVATE ${_railyard_pch_${kind}_definitions})
  target_precompile_headers(${target} REUSE_FROM ${owner})
  # CMake adds -Winvalid-pch: a user whose macros differ from the owner's parses the headers
  # instead and is told so, as a warning even under RAILYARD_WERROR (it costs time, not
  # correctness).
  target_compile_options(${target} PRIVATE -Wno-error=invalid-pch)
  # AUTOMOC gives every target a mocs_compilation.cpp; in these kinds it is empty (a test's class
  # is moc'd into its own .cc), yet loading the header cost 1.3-4 s per target: 197 CPU s of a
  # release build across 100 targets. Only the ui libraries' mocs_compilation.cpp has content.
  if(kind MATCHES "^(core|test|console_test)$")
    set_source_files_properties(
      "${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp"
      TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  endif()
  # GCC 12 checks libstdc++'s inlined string copies against their callers' objects after
  # inlining and, once <string> comes precompiled, no longer treats what it finds there as system
  # code: std::string(n, c) + "..." reads as an out-of-bounds memcpy (its bugs 105329 and
  # 105651). These four are the warnings those false positives come as; ASan and UBSan check the
  # same bounds at run time in the sanitizer stages.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow
      -Wno-stringop-overread -Wno-restrict)
  endif()
endfunction()
