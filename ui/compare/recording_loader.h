// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <thread>

#include "ui/compare/recording_series.h"

namespace railyard::ui {

// Loads one recording's series (LoadRecordingSeries) on a thread of its own, so a large file
// does not freeze the window, and reports progress and the result on the GUI thread.
//
// Thread safety: GUI thread only. The worker touches no QObject: it posts its progress and result
// with RunOnReceiverThread. The destructor cancels a running load and joins its thread, so the
// loader outlives every call it posted (Qt drops those still queued).
class RecordingLoader : public QObject {
  Q_OBJECT
 public:
  explicit RecordingLoader(QObject* parent = nullptr);
  ~RecordingLoader() override;

  // Starts loading `path`, cancelling a load still running (its result is never reported).
  void Load(const QString& path);
  bool Busy() const { return busy_; }

 Q_SIGNALS:
  void Progress(double fraction);
  void Loaded(std::shared_ptr<const RecordingSeries> series);
  void Failed(const QString& error);

 private:
  void StopWorker();

  std::thread worker_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  quint64 job_ = 0;  // The current load's number: results of older ones are dropped.
  bool busy_ = false;
};

}  // namespace railyard::ui
