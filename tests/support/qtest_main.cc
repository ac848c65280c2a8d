// SPDX-License-Identifier: Apache-2.0
// main() of every test executable: runs the suite that its first argument names
// (tests/support/qtest_main.h).
#include "tests/support/qtest_main.h"

#include <QMetaMethod>
#include <QStringList>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace railyard::qtest_main {
namespace {

std::map<std::string, QtestSuiteRunner>& Suites() {
  static std::map<std::string, QtestSuiteRunner> suites;
  return suites;
}

}  // namespace

bool RegisterQtestSuite(const char* name, QtestSuiteRunner run) {
  Suites()[name] = run;
  return true;
}

int ExecSuite(QObject* suite, int argc, char* argv[]) {
  // The two entries of a split suite may run side by side: settings folders of their own.
  const QString instance = qEnvironmentVariable("RAILYARD_QTEST_INSTANCE");
  if (!instance.isEmpty()) QCoreApplication::setApplicationName(instance);
  const QStringList skip =
      qEnvironmentVariable("RAILYARD_QTEST_SKIP").split(u',', Qt::SkipEmptyParts);
  // QtTest's options that take a value: that value names no function.
  const QStringList valued = {
      "-o",        "-maxwarnings",  "-eventdelay",   "-keydelay",   "-mousedelay", "-seed",
      "-platform", "-minimumvalue", "-minimumtotal", "-iterations", "-median",     "-perfcounter"};
  bool functions_given = false;
  for (int i = 1; i < argc; ++i) {
    if (valued.contains(QString::fromLocal8Bit(argv[i]))) {
      ++i;
    } else {
      functions_given |= argv[i][0] != '-';
    }
  }
  if (skip.isEmpty() || functions_given) return QTest::qExec(suite, argc, argv);
  // QtTest's test functions: private void slots without parameters, but the fixtures and _data.
  const QStringList fixtures = {"initTestCase", "cleanupTestCase", "init", "cleanup"};
  const QMetaObject* meta = suite->metaObject();
  QStringList run, found;
  for (int i = meta->methodOffset(); i < meta->methodCount(); ++i) {
    const QMetaMethod method = meta->method(i);
    const QString name = QString::fromLatin1(method.name());
    if (method.methodType() != QMetaMethod::Slot || method.access() != QMetaMethod::Private ||
        method.parameterCount() != 0 || method.returnType() != QMetaType::Void ||
        fixtures.contains(name) || name.endsWith("_data")) {
      continue;
    }
    (skip.contains(name) ? found : run) << name;
  }
  for (const QString& name : skip) {
    if (!found.contains(name)) {
      std::fprintf(stderr, "RAILYARD_QTEST_SKIP names %s, which %s does not have\n",
                   qPrintable(name), meta->className());
      return 1;
    }
  }
  std::vector<QByteArray> names;
  for (const QString& name : run) names.push_back(name.toLatin1());
  std::vector<char*> args(argv, argv + argc);
  for (QByteArray& name : names) args.push_back(name.data());
  return QTest::qExec(suite, int(args.size()), args.data());
}

}  // namespace railyard::qtest_main

int main(int argc, char* argv[]) {
  const auto& suites = railyard::qtest_main::Suites();
  if (argc >= 2) {
    if (const auto it = suites.find(argv[1]); it != suites.end()) {
      // The suite sees the program's name and the options after its own name.
      argv[1] = argv[0];
      return it->second(argc - 1, argv + 1);
    }
  }
  if (suites.size() == 1) return suites.begin()->second(argc, argv);
  std::fprintf(stderr, "usage: %s SUITE [QtTest options, e.g. -functions or a test function]\n",
               argv[0]);
  std::fprintf(stderr, "suites:");
  for (const auto& [name, run] : suites) std::fprintf(stderr, " %s", name.c_str());
  std::fprintf(stderr, "\n");
  return 2;
}
