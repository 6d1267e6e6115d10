// SPDX-License-Identifier: Apache-2.0
// A kernel trace read while the simulation runs: the header first, then the thread blocks in
// file order on a reader thread that keeps at most a window of them parsed ahead of the
// simulation, which takes block i when it launches it (waiting only if the reader is behind). A
// block's memory is freed when its last holder (the SM running it) lets go, so the trace in
// memory is bounded by the window plus the blocks resident on the GPU, whatever the file's size.
// The file is read in chunks. Errors are the parser's trace_error ("file:line: "), raised where
// the simulation asks for the block they are in (or, past the last block, in check_end): at the
// same point of the simulation whatever the threads' timing.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "trace.h"

namespace gpuvp::sm {

// Where gpu_sim takes a kernel's thread blocks from.
class cta_source {
 public:
  virtual ~cta_source() = default;
  virtual const kernel_header& header() const = 0;
  virtual uint64_t cta_count() const = 0;
  // Thread block i, taken once each in order 0, 1, ...; waits until it is parsed. Throws the
  // file's trace_error if the file is malformed at or before block i.
  virtual std::shared_ptr<const trace_cta> take(uint64_t i) = 0;
  // Waits until the whole file is read; throws its trace_error if the rest is malformed.
  virtual void check_end() {}
};

// A whole kernel in memory as a cta_source (the blocks stay the kernel_trace's).
class kernel_trace_ctas : public cta_source {
 public:
  explicit kernel_trace_ctas(const kernel_trace& k) : k_(k) {}
  const kernel_header& header() const override { return k_; }
  uint64_t cta_count() const override { return k_.ctas.size(); }
  std::shared_ptr<const trace_cta> take(uint64_t i) override { return {std::shared_ptr<const trace_cta>(), &k_.ctas.at(i)}; }

 private:
  const kernel_trace& k_;
};

// A file's lines, read in chunks (never the whole file at once).
class line_reader {
 public:
  // Throws trace_error "path:0: cannot open file" (or "path: is a directory ...").
  explicit line_reader(const std::string& path, size_t chunk = size_t(1) << 20);
  ~line_reader();
  line_reader(const line_reader&) = delete;
  line_reader& operator=(const line_reader&) = delete;
  // The next line without its '\n', valid until the next call; false at the end of the file.
  bool next(std::string_view& line);
  unsigned number() const { return number_; }  // of the line last returned (0 before the first)

 private:
  void refill();
  std::string path_;
  std::FILE* f_ = nullptr;
  std::vector<char> buf_;
  size_t begin_ = 0, end_ = 0;  // the unread bytes
  unsigned number_ = 0;
  bool eof_ = false;
};

class kernel_trace_stream : public cta_source {
 public:
  // How far the reader may run ahead: parsed blocks not yet taken, at most `ctas` of them and
  // (beyond the first) `bytes` of memory.
  struct window {
    uint64_t ctas = 256;
    uint64_t bytes = uint64_t(64) << 20;
  };
  // Reads the header (throwing its trace_error), then starts the reader thread.
  explicit kernel_trace_stream(const std::string& path, window w);
  explicit kernel_trace_stream(const std::string& path) : kernel_trace_stream(path, window{}) {}
  ~kernel_trace_stream() override;  // stops the reader and joins it
  kernel_trace_stream(const kernel_trace_stream&) = delete;
  kernel_trace_stream& operator=(const kernel_trace_stream&) = delete;

  const kernel_header& header() const override { return header_; }
  uint64_t cta_count() const override { return header_.grid.count(); }  // the file must hold as many
  std::shared_ptr<const trace_cta> take(uint64_t i) override;
  void check_end() override;

  // Thread blocks in memory now: parsed and not taken yet, or taken and still held; the most at
  // once so far.
  uint64_t resident_ctas() const { return counts_->now.load(); }
  uint64_t peak_resident_ctas() const { return counts_->peak.load(); }
  // Times take() found its block not parsed yet and waited for the reader.
  uint64_t waits() const { return waits_; }

 private:
  struct resident_count {
    std::atomic<uint64_t> now{0}, peak{0};
  };
  struct parsed {
    std::shared_ptr<const trace_cta> cta;
    size_t bytes;
  };
  void read_ctas();                // the reader thread
  bool push(trace_cta&& c);        // false: stopped
  void end(std::exception_ptr e);  // the reader is done (e: the file's error, or none)

  kernel_header header_;
  window window_;
  std::unique_ptr<line_reader> lines_;
  std::unique_ptr<kernel_trace_parser> parser_;
  std::shared_ptr<resident_count> counts_ = std::make_shared<resident_count>();
  std::mutex m_;
  std::condition_variable parsed_cv_, space_cv_;
  std::deque<parsed> ready_;  // blocks taken_ .. taken_ + ready_.size() - 1
  uint64_t ready_bytes_ = 0, taken_ = 0, waits_ = 0;
  bool done_ = false;
  std::exception_ptr error_;
  std::atomic<bool> stop_{false};
  std::thread reader_;
};

}  // namespace gpuvp::sm
