// SPDX-License-Identifier: Apache-2.0
// Shared check for .pb workload parse errors: the text must be refused with a message
// containing `what` (which names w.pb:LINE where the format has a line).
#pragma once
#include <stdexcept>
#include <string>
#include <gtest/gtest.h>
#include "workload.h"

inline void expect_pb_rejected(const std::string& text, const std::string& what) {
  try {
    gpuvp::pfifo::parse_pb_workload(text, "w.pb");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}
