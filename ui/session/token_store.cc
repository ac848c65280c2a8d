// SPDX-License-Identifier: Apache-2.0
#include "ui/session/token_store.h"

#include <qt6keychain/keychain.h>
#include <QTimer>

namespace railyard::ui {

namespace {

constexpr char kService[] = "railyard";

QString KeyFor(const QString& address) { return QStringLiteral("admin-token:") + address; }

}  // namespace

TokenStore::TokenStore(bool use_keyring, QObject* parent) : QObject(parent) {
  if (use_keyring) {
    Probe();
  } else {
    backend_ = Backend::kMemory;
    why_ = tr("keyring not used");
  }
}

QString TokenStore::BackendDescription() const {
  switch (backend_) {
    case Backend::kProbing:
      return tr("Tokens: asking the keyring...");
    case Backend::kKeyring:
      return tr("Tokens: system keyring");
    case Backend::kMemory:
      return tr("Tokens: this session only");
  }
  return {};
}

QString TokenStore::BackendDetails() const {
  switch (backend_) {
    case Backend::kProbing:
      return tr("Asking the system keyring whether it can keep tokens");
    case Backend::kKeyring:
      return tr("Tokens you enter are kept in the system keyring for the next sessions");
    case Backend::kMemory:
      // The keyring library's own words ("Unknown error") mean nothing to an operator: say what
      // follows from them first, and keep them last for whoever debugs the desktop.
      return tr("Tokens you enter are kept in memory only, never written to disk, and asked "
                "again in the next session (%1)")
          .arg(why_);
  }
  return {};
}

bool TokenStore::HasAnyToken() const {
  for (const QString& t : cache_) {
    if (!t.isEmpty()) return true;
  }
  return false;
}

void TokenStore::SetBackend(Backend backend, const QString& why) {
  if (backend_ != Backend::kProbing) return;  // The first answer (or the deadline) decides.
  backend_ = backend;
  why_ = why;
  if (backend_ == Backend::kKeyring) {
    // Tokens entered while the keyring was still being asked are saved now, not forgotten.
    for (auto it = cache_.constBegin(); it != cache_.constEnd(); ++it) {
      if (!it.value().isEmpty() && !session_only_.contains(it.key())) {
        SaveToKeyring(it.key(), it.value());
      }
    }
  }
  Q_EMIT BackendChanged(backend_);
}

void TokenStore::Probe() {
  // A read of a key that normally does not exist: "not found" means a keyring answered.
  auto* job = new QKeychain::ReadPasswordJob(QLatin1String(kService), this);
  job->setAutoDelete(true);
  job->setInsecureFallback(false);
  job->setKey(QStringLiteral("probe"));
  connect(job, &QKeychain::Job::finished, this, [this](QKeychain::Job* j) {
    if (j->error() == QKeychain::NoError || j->error() == QKeychain::EntryNotFound) {
      SetBackend(Backend::kKeyring, {});
    } else {
      SetBackend(Backend::kMemory, tr("no system keyring answered: %1").arg(j->errorString()));
    }
  });
  job->start();
  // A keyring that never answers must not leave tokens in limbo.
  QTimer::singleShot(3000, this,
                     [this] { SetBackend(Backend::kMemory, tr("keyring did not answer")); });
}

void TokenStore::SetToken(const QString& address, const QString& token) {
  cache_.insert(address, token);
  if (backend_ == Backend::kKeyring && !session_only_.contains(address)) {
    SaveToKeyring(address, token);
  }
}

bool TokenStore::Forget(const QString& address) {
  const bool known = cache_.remove(address) > 0;
  const bool session_only = session_only_.remove(address);
  if (backend_ == Backend::kKeyring && !session_only) {
    // Also when this session never read it: an earlier session may have saved one.
    auto* job = new QKeychain::DeletePasswordJob(QLatin1String(kService), this);
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(KeyFor(address));
    job->start();
  }
  return known;
}

void TokenStore::KeepForSessionOnly(const QString& address) { session_only_.insert(address); }

void TokenStore::SaveToKeyring(const QString& address, const QString& token) {
  auto* job = new QKeychain::WritePasswordJob(QLatin1String(kService), this);
  job->setAutoDelete(true);
  job->setInsecureFallback(false);
  job->setKey(KeyFor(address));
  job->setTextData(token);
  job->start();
}

void TokenStore::Load(const QString& address, std::function<void(const QString&)> done) {
  if (auto it = cache_.constFind(address);
      it != cache_.constEnd() || backend_ != Backend::kKeyring) {
    done(it != cache_.constEnd() ? *it : QString());
    return;
  }
  auto* job = new QKeychain::ReadPasswordJob(QLatin1String(kService), this);
  job->setAutoDelete(true);
  job->setInsecureFallback(false);
  job->setKey(KeyFor(address));
  connect(job, &QKeychain::Job::finished, this,
          [this, address, done = std::move(done)](QKeychain::Job* j) {
            const QString token = j->error() == QKeychain::NoError
                                      ? static_cast<QKeychain::ReadPasswordJob*>(j)->textData()
                                      : QString();
            if (!token.isEmpty()) cache_.insert(address, token);
            done(token);
          });
  job->start();
}

}  // namespace railyard::ui
