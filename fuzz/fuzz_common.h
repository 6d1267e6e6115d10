// SPDX-License-Identifier: Apache-2.0
// Shared by the libFuzzer harnesses (docs/testing.md). A harness feeds its input to one parser or
// decoder. The parser's documented error exception is a fine answer when its message names where
// (file:line or the origin); anything else is a finding: a crash, another exception (std::invalid_argument
// from stoull, std::bad_alloc...), an ASan/UBSan report, a time-out or the RSS limit.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>
#include <vector>

namespace gpuvp::fuzz {

[[noreturn]] inline void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "gpuvp fuzz finding: %s: %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();  // libFuzzer saves the input as crash-<sha1>
}

// Runs f(); an exception of type E whose message starts with `prefix` is fine.
template <typename E, typename F>
void expect_only(const std::string& prefix, F&& f) {
  try {
    f();
  } catch (const E& e) {
    const std::string msg = e.what();
    if (msg.compare(0, prefix.size(), prefix) != 0) finding("error message does not say where", msg);
  } catch (const std::exception& e) {
    finding(typeid(e).name(), e.what());
  } catch (...) {
    finding("unknown exception", "");
  }
}

inline std::string as_text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// Little-endian dwords (a trailing partial word is dropped, as the file readers do).
inline std::vector<uint32_t> as_words(const uint8_t* data, size_t size) {
  std::vector<uint32_t> w(size / 4);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = uint32_t(data[4 * i]) | uint32_t(data[4 * i + 1]) << 8 | uint32_t(data[4 * i + 2]) << 16 | uint32_t(data[4 * i + 3]) << 24;
  return w;
}

}  // namespace gpuvp::fuzz
