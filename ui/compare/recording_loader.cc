// SPDX-License-Identifier: Apache-2.0
#include "ui/compare/recording_loader.h"

#include "ui/support/gui_thread.h"

namespace railyard::ui {

RecordingLoader::RecordingLoader(QObject* parent) : QObject(parent) {}

RecordingLoader::~RecordingLoader() { StopWorker(); }

void RecordingLoader::StopWorker() {
  if (cancel_) cancel_->store(true);
  if (worker_.joinable()) worker_.join();
  cancel_.reset();
}

void RecordingLoader::Load(const QString& path) {
  StopWorker();
  const quint64 job = ++job_;
  busy_ = true;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  worker_ = std::thread([this, path, job, cancel = cancel_] {
    LoadSeriesOptions options;
    options.cancel = cancel.get();
    options.progress = [this, job](double fraction) {
      RunOnReceiverThread(this, [this, job, fraction] {
        if (job == job_) Q_EMIT Progress(fraction);
      });
    };
    auto series = std::make_shared<RecordingSeries>();
    QString error;
    const bool ok = LoadRecordingSeries(path, options, series.get(), &error);
    if (cancel->load()) return;  // Superseded or shutting down: nobody wants the result.
    RunOnReceiverThread(this, [this, job, ok, error, series = std::move(series)]() mutable {
      if (job != job_) return;
      busy_ = false;
      if (ok) {
        Q_EMIT Loaded(std::shared_ptr<const RecordingSeries>(std::move(series)));
      } else {
        Q_EMIT Failed(error);
      }
    });
  });
}

}  // namespace railyard::ui
