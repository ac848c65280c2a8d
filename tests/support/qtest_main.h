// SPDX-License-Identifier: Apache-2.0
#pragma once

// Many QtTest suites in one executable. A folder's suites link into one program
// (tests/CMakeLists.txt, railyard_add_qtest), so that a build links, moc-scans and loads a
// precompiled header for each folder once instead of for each suite (docs/ci.md). Each suite ends
// with RAILYARD_QTEST_MAIN(Class) or RAILYARD_QTEST_GUILESS_MAIN(Class) where it used QTEST_MAIN
// or QTEST_GUILESS_MAIN, and runs as
//
//   tests_rpc FailoverTest [QtTest options]
//
// An executable that holds one suite also runs it without the name (as a slow suite's own
// program does). A suite gets the application that QTEST_MAIN would give it, with its class
// name as the application name, so that suites of one program run side by side (ctest -j2)
// never share QSettings or QStandardPaths folders.

#include <QCoreApplication>
#include <QTest>

namespace railyard::qtest_main {

using QtestSuiteRunner = int (*)(int argc, char* argv[]);

// Makes `run` the suite called `name`; called from static initialisers, before main(). Returns
// true. Thread safety: only before main().
bool RegisterQtestSuite(const char* name, QtestSuiteRunner run);

// QTest::qExec(suite, argc, argv), but without the test functions that the environment variable
// RAILYARD_QTEST_SKIP names (comma-separated), so that ctest can run a long suite as two entries
// (railyard_add_qtest's SPLIT: one runs the named functions, the other the rest). Functions named
// on the command line run as given. A skipped name the suite lacks fails the run (exit 1), so that
// a renamed function cannot fall between the two entries. RAILYARD_QTEST_INSTANCE, where set,
// replaces the application name (the two entries' QSettings and QStandardPaths folders).
int ExecSuite(QObject* suite, int argc, char* argv[]);

}  // namespace railyard::qtest_main

#define RAILYARD_QTEST_SUITE_(TestObject, ...)                                         \
  namespace {                                                                          \
  int RailyardRunQtestSuite_##TestObject(int argc, char* argv[]) {                     \
    QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                 \
    __VA_ARGS__                                                                        \
    QCoreApplication::setApplicationName(QStringLiteral(#TestObject));                 \
    TestObject suite;                                                                  \
    return ::railyard::qtest_main::ExecSuite(&suite, argc, argv);                      \
  }                                                                                    \
  [[maybe_unused]] const bool railyard_qtest_registered_##TestObject =                 \
      ::railyard::qtest_main::RegisterQtestSuite(#TestObject,                          \
                                                 &RailyardRunQtestSuite_##TestObject); \
  }

// QTEST_MAIN's application: a QApplication where the program links Qt Widgets.
#define RAILYARD_QTEST_MAIN(TestObject) RAILYARD_QTEST_SUITE_(TestObject, QTEST_MAIN_SETUP())
// QTEST_GUILESS_MAIN's: a QCoreApplication.
#define RAILYARD_QTEST_GUILESS_MAIN(TestObject) \
  RAILYARD_QTEST_SUITE_(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
