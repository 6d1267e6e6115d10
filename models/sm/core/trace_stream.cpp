// SPDX-License-Identifier: Apache-2.0
#include "trace_stream.h"

#include <csignal>
#include <cstring>
#include <filesystem>

#include <pthread.h>

namespace gpuvp::sm {

// ---- line_reader -----------------------------------------------------------------------------

line_reader::line_reader(const std::string& path, size_t chunk) : path_(path), buf_(std::max<size_t>(chunk, 64)) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw trace_error(path + ": is a directory, expected a trace file");
  f_ = std::fopen(path.c_str(), "rb");
  if (!f_) throw trace_error(path + ":0: cannot open file");
}

line_reader::~line_reader() { std::fclose(f_); }

bool line_reader::next(std::string_view& line) {
  for (;;) {
    const char* at = buf_.data() + begin_;
    if (const void* nl = std::memchr(at, '\n', end_ - begin_)) {
      const size_t len = size_t(static_cast<const char*>(nl) - at);
      line = std::string_view(at, len);
      begin_ += len + 1;
      ++number_;
      return true;
    }
    if (eof_) {
      if (begin_ == end_) return false;
      line = std::string_view(at, end_ - begin_);  // the last line, without a '\n'
      begin_ = end_;
      ++number_;
      return true;
    }
    refill();
  }
}

// The unread part of a line moved to the front, the rest of the buffer filled from the file (the
// buffer doubled when one line fills it).
void line_reader::refill() {
  const size_t rest = end_ - begin_;
  if (begin_) std::memmove(buf_.data(), buf_.data() + begin_, rest);
  begin_ = 0;
  end_ = rest;
  if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
  const size_t n = std::fread(buf_.data() + end_, 1, buf_.size() - end_, f_);
  if (n == 0) {
    if (std::ferror(f_)) throw trace_error(path_ + ":" + std::to_string(number_ + 1) + ": read error");
    eof_ = true;
  }
  end_ += n;
}

// ---- whole kernels ---------------------------------------------------------------------------

kernel_trace parse_kernel_trace(const std::string& path) {
  line_reader lines(path);
  kernel_trace k;
  k.file = path;
  kernel_trace_parser parser(path, k);
  std::string_view l;
  while (lines.next(l))
    if (parser.line(l, lines.number())) k.ctas.push_back(parser.take_cta());
  parser.finish(lines.number());
  k.opcodes = parser.opcodes();
  k.warp_insts = parser.warp_insts();
  return k;
}

// ---- kernel_trace_stream ---------------------------------------------------------------------

kernel_trace_stream::kernel_trace_stream(const std::string& path, window w)
    : window_(w), lines_(std::make_unique<line_reader>(path)), parser_(std::make_unique<kernel_trace_parser>(path, header_)) {
  header_.file = path;
  if (window_.ctas == 0) window_.ctas = 1;
  std::string_view l;
  while (!parser_->in_body() && lines_->next(l)) parser_->line(l, lines_->number());
  if (!parser_->in_body()) parser_->finish(lines_->number());  // no thread block: throws
  reader_ = std::thread([this] { read_ctas(); });
}

kernel_trace_stream::~kernel_trace_stream() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
  }
  space_cv_.notify_all();
  reader_.join();
}

void kernel_trace_stream::read_ctas() {
  // Ctrl-C and SIGTERM go to the simulation's thread (interrupt_scope), and never interrupt a
  // read here.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    std::string_view l;
    while (!stop_.load(std::memory_order_relaxed) && lines_->next(l))
      if (parser_->line(l, lines_->number()) && !push(parser_->take_cta())) return;
    if (!stop_) parser_->finish(lines_->number());
    end(nullptr);
  } catch (...) {
    end(std::current_exception());
  }
}

// Hands a parsed block to the simulation once the window has room; counted as resident until
// the last holder drops it.
bool kernel_trace_stream::push(trace_cta&& c) {
  const size_t bytes = c.bytes();
  const uint64_t now = ++counts_->now;
  if (now > counts_->peak) counts_->peak = now;  // only this thread raises it
  std::shared_ptr<const trace_cta> p(new trace_cta(std::move(c)), [counts = counts_](const trace_cta* t) {
    delete t;
    --counts->now;
  });
  std::unique_lock lk(m_);
  space_cv_.wait(lk, [&] { return stop_ || ready_.empty() || (ready_.size() < window_.ctas && ready_bytes_ < window_.bytes); });
  if (stop_) return false;
  ready_.push_back({std::move(p), bytes});
  ready_bytes_ += bytes;
  lk.unlock();
  parsed_cv_.notify_one();
  return true;
}

void kernel_trace_stream::end(std::exception_ptr e) {
  {
    std::lock_guard lk(m_);
    done_ = true;
    error_ = e;
  }
  parsed_cv_.notify_all();
}

std::shared_ptr<const trace_cta> kernel_trace_stream::take(uint64_t i) {
  std::unique_lock lk(m_);
  if (i != taken_) throw std::logic_error("kernel_trace_stream: block " + std::to_string(i) + " taken out of order");
  if (ready_.empty() && !done_) {
    ++waits_;
    parsed_cv_.wait(lk, [&] { return !ready_.empty() || done_; });
  }
  if (ready_.empty()) {
    if (error_) std::rethrow_exception(error_);
    throw trace_error(header_.file + ": no thread block " + std::to_string(i) + " (the file has " + std::to_string(taken_) + ")");
  }
  parsed p = std::move(ready_.front());
  ready_.pop_front();
  ready_bytes_ -= p.bytes;
  ++taken_;
  lk.unlock();
  space_cv_.notify_one();
  return std::move(p.cta);
}

void kernel_trace_stream::check_end() {
  std::unique_lock lk(m_);
  parsed_cv_.wait(lk, [&] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

}  // namespace gpuvp::sm
