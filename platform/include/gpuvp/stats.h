// SPDX-License-Identifier: Apache-2.0
// Named statistics per module: counters, histograms and derived values (gauges). Each registers
// under its owner's SystemC name ("interconnect.sysram.transactions"). `gpuvp run` prints them
// at the end and writes JSON with --stats; the same inputs give the same numbers, bit for bit.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <systemc>

namespace gpuvp {

class counter {
 public:
  counter(const sc_core::sc_object* owner, const std::string& name, const std::string& description);
  counter(std::string path, const std::string& description);
  ~counter();
  counter(const counter&) = delete;
  counter& operator=(const counter&) = delete;
  counter& operator++() {
    ++v_;
    return *this;
  }
  counter& operator+=(uint64_t n) {
    v_ += n;
    return *this;
  }
  operator uint64_t() const { return v_; }
  uint64_t value() const { return v_; }

 private:
  uint64_t v_ = 0;
};

// Histogram with power-of-two buckets: bucket 0 holds 0, bucket k holds [2^(k-1), 2^k).
class histogram {
 public:
  static constexpr unsigned buckets = 65;
  histogram(const sc_core::sc_object* owner, const std::string& name, const std::string& description, std::string unit = "");
  histogram(std::string path, const std::string& description, std::string unit = "");
  ~histogram();
  histogram(const histogram&) = delete;
  histogram& operator=(const histogram&) = delete;
  void add(uint64_t v) {  // inline, 0 first: the router adds one per transaction, mostly 0
    ++count_;
    if (v == 0) {
      ++bins_[0];
      min_ = 0;
      return;
    }
    ++bins_[64 - __builtin_clzll(v)];
    sum_ += v;
    min_ = v < min_ ? v : min_;
    max_ = v > max_ ? v : max_;
  }
  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? double(sum_) / double(count_) : 0.0; }
  const std::array<uint64_t, buckets>& bins() const { return bins_; }
  const std::string& unit() const { return unit_; }

 private:
  std::array<uint64_t, buckets> bins_{};
  uint64_t count_ = 0, sum_ = 0, min_ = ~uint64_t(0), max_ = 0;
  std::string unit_;
};

// A value computed when the statistics are read (ratios, busy fractions, occupancy).
class gauge {
 public:
  gauge(const sc_core::sc_object* owner, const std::string& name, const std::string& description, std::function<double()> fn);
  gauge(std::string path, const std::string& description, std::function<double()> fn);
  ~gauge();
  gauge(const gauge&) = delete;
  gauge& operator=(const gauge&) = delete;
  double value() const { return fn_(); }

 private:
  std::function<double()> fn_;
};

class stats_registry {
 public:
  struct entry {
    std::string path, description;
    const counter* c = nullptr;
    const histogram* h = nullptr;
    const gauge* g = nullptr;
  };
  static stats_registry& global();
  void add(entry e);
  void remove(const void* stat);
  // Entries sorted by path, optionally only those starting with prefix.
  std::vector<entry> list(const std::string& prefix = "") const;
  std::string to_json(const std::string& prefix = "") const;
  std::string to_text(const std::string& prefix = "") const;
  // Value of a counter or gauge by path; nullopt-like NaN when absent.
  double value(const std::string& path) const;

 private:
  std::vector<entry> entries_;
};

}  // namespace gpuvp
