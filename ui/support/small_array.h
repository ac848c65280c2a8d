// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QVarLengthArray>

#include <utility>

namespace railyard::ui {

// QVarLengthArray for arrays kept inside structs that may be moved by assignment onto a live
// element (compacting a vector in place, std::remove_if). Qt 6.4's move assignment, the one
// Debian 12 ships, empties the target but keeps its heap buffer, then takes the source's buffer in
// its place: the first buffer leaks. This one goes back to the inline buffer (freeing the heap
// one) first. Otherwise it is the Qt container, with its contracts; not thread-safe.
template <typename T, qsizetype Prealloc>
class SmallArray : public QVarLengthArray<T, Prealloc> {
  using Base = QVarLengthArray<T, Prealloc>;

 public:
  using Base::Base;
  SmallArray() = default;
  SmallArray(const SmallArray&) = default;
  SmallArray(SmallArray&&) = default;
  SmallArray& operator=(const SmallArray&) = default;
  SmallArray& operator=(SmallArray&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this == &other) return *this;
    if (this->capacity() > Prealloc) {
      this->clear();
      this->squeeze();
    }
    Base::operator=(std::move(other));
    return *this;
  }
  ~SmallArray() = default;
};

}  // namespace railyard::ui
