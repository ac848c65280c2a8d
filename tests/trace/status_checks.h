// SPDX-License-Identifier: Apache-2.0
#pragma once

// QtTest check for the trace tests: fails the test with the Status's text unless it is ok.

#include <QTest>

#include "core/trace/status.h"

#define VERIFY_OK(expr)                                                     \
  do {                                                                      \
    const ::railyard::trace::Status verify_ok_status_ = (expr);             \
    QVERIFY2(verify_ok_status_.ok(), verify_ok_status_.ToString().c_str()); \
  } while (false)
