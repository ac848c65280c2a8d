// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace railyard::ui {

// A fixed-capacity FIFO: pushing onto a full buffer overwrites the oldest element. Storage grows
// (doubling, from `first_storage` elements) as elements arrive, up to the capacity, so idle
// series cost little. Buffers filled in step (a series per node, one sample each a frame) should
// start from different sizes, so that they do not all copy themselves in the same frame.
//
// It stands in for a standard container, so its public methods keep the standard containers'
// names (push_back, front, size...) against the console's CamelCase rule (docs/architecture.md).
//
// Thread safety: none; the owner serialises access.
template <typename T>
class RingBuffer {
 public:
  explicit RingBuffer(size_t capacity = 1, size_t first_storage = 16)
      : capacity_(std::max<size_t>(1, capacity)),
        first_storage_(std::max<size_t>(1, first_storage)) {}

  void push_back(const T& value) {
    if (count_ == items_.size()) {
      if (items_.size() < capacity_) {
        Grow();
      } else {
        items_[head_] = value;  // Full: the newest replaces the oldest.
        head_ = (head_ + 1) % items_.size();
        return;
      }
    }
    items_[(head_ + count_) % items_.size()] = value;
    ++count_;
  }
  void pop_front() {
    if (count_ == 0) return;
    head_ = (head_ + 1) % items_.size();
    --count_;
  }
  void clear() {
    head_ = 0;
    count_ = 0;
  }

  size_t size() const { return count_; }
  size_t capacity() const { return capacity_; }
  // Elements' storage allocated so far (grows to capacity()).
  size_t storage() const { return items_.size(); }
  bool empty() const { return count_ == 0; }
  // i = 0 is the oldest element. REQUIRES: i < size().
  const T& operator[](size_t i) const { return items_[(head_ + i) % items_.size()]; }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[count_ - 1]; }
  // Replaces the newest element (an open bucket that grows). REQUIRES: !empty().
  void set_back(const T& value) { items_[(head_ + count_ - 1) % items_.size()] = value; }

 private:
  void Grow() {
    std::vector<T> bigger(std::min(capacity_, std::max(first_storage_, items_.size() * 2)));
    for (size_t i = 0; i < count_; ++i) bigger[i] = (*this)[i];
    items_.swap(bigger);
    head_ = 0;
  }

  size_t capacity_;
  size_t first_storage_;
  std::vector<T> items_;
  size_t head_ = 0;  // The oldest element.
  size_t count_ = 0;
};

}  // namespace railyard::ui
