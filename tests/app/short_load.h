// SPDX-License-Identifier: Apache-2.0
#pragma once

// One short run of the built railyardctl load, for the suites that check how it meets a
// docservice's credentials (tokens, TLS).

#include <QProcess>
#include <QString>
#include <QStringList>

#include "core/rpc/endpoint.h"
#include "tests/support/test_paths.h"

namespace railyard::testing {

// `railyardctl load -s SERVICE` for a second at two calls in flight over 100 keys, with `extra`
// flags; its exit code (-1 if it did not end within 30 s), and what it printed in `out`.
inline int ShortLoad(const rpc::Endpoint& service, const QStringList& extra, QString* out) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(BuiltProgram("railyardctl"),
                QStringList{"load", "-s", QString::fromStdString(service.ToString()),
                            "--duration-s", "1", "--concurrency", "2", "--keys", "100"} +
                    extra);
  if (!process.waitForFinished(30000)) return -1;
  *out = QString::fromUtf8(process.readAllStandardOutput());
  return process.exitCode();
}

}  // namespace railyard::testing
