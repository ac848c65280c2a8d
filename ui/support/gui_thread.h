// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMetaObject>
#include <QObject>
#include <type_traits>
#include <utility>

namespace railyard::ui {

// Hands a worker thread's result to the thread `receiver` lives on (in the console, the GUI
// thread): `function` runs there later, from that thread's event loop, or never if `receiver`
// is destroyed before then.
//
// Contract:
//   - Call from any thread. `receiver` must stay alive for the duration of this call; it may be
//     destroyed at any time after. The usual way to hold that: the receiver's owner waits for
//     (or joins) its workers before destroying it, as ActionController waits for its pool.
//   - `function` runs on `receiver`'s thread, at most once, and only while `receiver` is alive:
//     QObject's destructor discards the calls still queued for it. It may therefore use the
//     receiver (capture `this`). It is moved or copied into the queued call: the calling thread
//     keeps no share of it, so it should capture results by value.
//   - A null `receiver`: nothing is queued and `function` never runs.
//   - Calls posted to one receiver run in the order they were posted.
//   - A stale result (a newer job superseded it) is the function's to drop: compare a job id or
//     generation it captured with the receiver's current one.
//
// No QPointer is needed on either side: a QPointer read on the worker cannot make posting to a
// dying object safe (only the lifetime rule above can), and Qt already drops queued calls to a
// destroyed receiver.
template <typename Function>
void RunOnReceiverThread(QObject* receiver, Function&& function) {
  static_assert(std::is_invocable_v<std::decay_t<Function>&>,
                "RunOnReceiverThread: the function takes no arguments");
  if (receiver == nullptr) return;
  QMetaObject::invokeMethod(receiver, std::forward<Function>(function), Qt::QueuedConnection);
}

}  // namespace railyard::ui
