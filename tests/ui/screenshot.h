// SPDX-License-Identifier: Apache-2.0
#pragma once
// Widget tests leave pictures of what they drew in the build folder's screenshots/, for people to
// look at. Header-only; needs Qt Widgets, QtTest and railyard_ui (QCustomPlot).

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <QTest>
#include <QWidget>

#include "tests/support/test_paths.h"
#include "ui/views/qcustomplot_include.h"

namespace railyard::ui::testing {

// Saves `widget` as screenshots/`name`, drawn as it would be on screen (queued replots and
// layouts run first), and checks the file reads back as an image of the widget's size.
inline void SaveScreenshot(QWidget* widget, const QString& name) {
  const QString dir = ::railyard::testing::ScreenshotDir();
  QDir().mkpath(dir);
  const QString path = QDir(dir).filePath(name);
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

}  // namespace railyard::ui::testing
