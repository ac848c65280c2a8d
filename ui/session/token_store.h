// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <functional>

namespace railyard::ui {

// Admin tokens per node address. Kept in the system keyring through QtKeychain (service
// "railyard"), never in QSettings or any plain file. Where no keyring service answers (no D-Bus
// secret service, as on an offscreen CI machine) tokens live in memory for this session only,
// and BackendDescription() says so for the status bar in plain words (BackendDetails() keeps the
// keyring's own error for a tooltip).
//
// Thread safety: GUI thread only.
class TokenStore : public QObject {
  Q_OBJECT
 public:
  enum class Backend { kProbing, kKeyring, kMemory };

  // use_keyring false: memory only from the start (tests, --token-file).
  explicit TokenStore(bool use_keyring = true, QObject* parent = nullptr);

  Backend backend() const { return backend_; }
  QString BackendDescription() const;
  // Why tokens are where they are, for the operator (and the keyring's error, if one).
  QString BackendDetails() const;

  // The token known for `address` this session (empty if none).
  QString Token(const QString& address) const { return cache_.value(address); }
  bool HasAnyToken() const;
  // Keeps `token` for this session and, with a keyring, for the next ones too.
  void SetToken(const QString& address, const QString& token);
  // Forgets the token for `address`: from memory and, with a keyring, from the keyring too (a
  // node the operator removed must not leave its token behind). Returns whether one was known.
  bool Forget(const QString& address);
  // Tokens for `address` stay in memory, never in the keyring (a demo's token, valid for one
  // run, must not be left behind).
  void KeepForSessionOnly(const QString& address);
  // Calls `done` with the token for `address`: from memory, else from the keyring (empty if
  // none). `done` runs later on the GUI thread when the keyring is asked.
  void Load(const QString& address, std::function<void(const QString&)> done);

 Q_SIGNALS:
  void BackendChanged(Backend backend);

 private:
  void Probe();
  void SetBackend(Backend backend, const QString& why);
  void SaveToKeyring(const QString& address, const QString& token);

  Backend backend_ = Backend::kProbing;
  QString why_;
  QHash<QString, QString> cache_;
  QSet<QString> session_only_;
};

}  // namespace railyard::ui
