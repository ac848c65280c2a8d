// SPDX-License-Identifier: Apache-2.0
#pragma once

// A unix datagram socket bound at a path, standing in for systemd's notify socket or journald's
// native socket in the tests of railyard-node's systemd side.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <QByteArray>
#include <cstring>

class UnixDatagram {
 public:
  // Binds at `path` (shorter than sun_path); ok() tells whether it worked.
  explicit UnixDatagram(const QByteArray& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (fd_ < 0 || size_t(path.size()) >= sizeof(address.sun_path)) return;
    std::memcpy(address.sun_path, path.constData(), size_t(path.size()));
    bound_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    // Journald's datagrams can be large (a full log line with its fields).
    const int buffer = 1 << 20;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof(buffer));
  }
  // Closes the socket and removes its file, so the path can be bound again.
  ~UnixDatagram() {
    if (fd_ >= 0) ::close(fd_);
    if (bound_) ::unlink(path_.constData());
  }
  UnixDatagram(const UnixDatagram&) = delete;
  UnixDatagram& operator=(const UnixDatagram&) = delete;

  bool ok() const { return bound_; }

  // The next datagram, or an empty array if none came within `timeout_ms`.
  QByteArray Receive(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) return {};
    QByteArray buffer(256 * 1024, '\0');
    const ssize_t n = ::recv(fd_, buffer.data(), size_t(buffer.size()), 0);
    return n > 0 ? buffer.left(int(n)) : QByteArray();
  }

 private:
  const QByteArray path_;
  int fd_ = -1;
  bool bound_ = false;
};
