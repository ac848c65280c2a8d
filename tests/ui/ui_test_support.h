// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small pieces the console's widget tests share. Header-only; SaveScreenshot exists where the test
// target defines SCREENSHOT_DIR (tests/ui/*.cmake). Tests link railyard_ui.

#include <memory>
#include <string>

#include "railyard/admin.pb.h"

#ifdef SCREENSHOT_DIR  // Widget tests only: model tests link no widgets.
#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <QTest>
#include <QWidget>

#include "ui/views/qcustomplot_include.h"
#endif

namespace railyard::ui::testing {

#ifdef SCREENSHOT_DIR
// Saves `widget` as SCREENSHOT_DIR/`name`, drawn as it would be on screen (queued replots and
// layouts run first), and checks the file reads back as an image of the widget's size.
inline void SaveScreenshot(QWidget* widget, const QString& name) {
  QDir().mkpath(SCREENSHOT_DIR);
  const QString path = QDir(SCREENSHOT_DIR).filePath(name);
  for (QCustomPlot* plot : widget->findChildren<QCustomPlot*>()) {
    plot->replot(QCustomPlot::rpImmediateRefresh);
  }
  QCoreApplication::processEvents();
  QVERIFY(widget->grab().save(path));
  const QImage image(path);
  QVERIFY(!image.isNull());
  QCOMPARE(image.size(), widget->size() * widget->devicePixelRatio());
  qInfo("screenshot: %s", qPrintable(path));
}
#endif

// A serving node's snapshot with nothing else in it, for tests to fill.
inline std::shared_ptr<admin::Telemetry> MakeTelemetry(const std::string& name, int64_t unix_ms) {
  auto t = std::make_shared<admin::Telemetry>();
  t->set_node(name);
  t->set_unix_ms(unix_ms);
  t->set_state(admin::NODE_SERVING);
  return t;
}

}  // namespace railyard::ui::testing
