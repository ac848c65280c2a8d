// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/launch_error.h"

#include <QMessageBox>

namespace railyard::ui {

QMessageBox* CreateLaunchErrorBox(const QString& reason, QWidget* parent) {
  auto* box = new QMessageBox(QMessageBox::Warning, QObject::tr("Railyard cannot start"), reason,
                              QMessageBox::Close, parent);
  box->setObjectName(QStringLiteral("launchError"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return box;
}

}  // namespace railyard::ui
