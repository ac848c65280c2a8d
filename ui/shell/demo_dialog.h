// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QString>
#include <QVector>

namespace railyard::ui {

// Where a demo cluster started by the console can be reached from outside it, so that
// railyardctl (or another console) can be pointed at it. The token is the demo's own operator
// token, valid for this run only.
struct DemoInfo {
  struct Node {
    QString name;
    QString role;
    QString admin;  // host:port
  };
  QVector<Node> nodes;
  QString token;
  QString cluster_file;     // The demo's cluster file (names every node's service and role).
  QString data_token_file;  // The docservices' writer token: load needs it, as on a real cluster.
};

// `railyardctl status -n <admin> ... --token <token>`: a command line that works as it is.
QString RailyardctlCommand(const DemoInfo& info);
// `railyardctl load --cluster <file> --data-token-file <file>`: more load on the demo's nodes.
QString RailyardctlLoadCommand(const DemoInfo& info);

// Shows a DemoInfo: each node's admin address, the token and the railyardctl command line, each
// in a read-only field with a Copy button that puts it on the clipboard. Non-modal.
//
// Thread safety: GUI thread only.
class DemoDialog : public QDialog {
  Q_OBJECT
 public:
  explicit DemoDialog(const DemoInfo& info, QWidget* parent = nullptr);
};

}  // namespace railyard::ui
