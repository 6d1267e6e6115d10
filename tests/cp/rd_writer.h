// SPDX-License-Identifier: Apache-2.0
// Writes small Mesa .rd captures for the tests (section layout of redump.h, docs/formats/rd.md).
#pragma once
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include <zlib.h>

#include "rd.h"

namespace cp_test {

struct rd_writer {
  std::string bytes;

  rd_writer& raw(uint32_t type, const std::string& body) {
    put(type);
    put(uint32_t(body.size()));
    bytes += body;
    return *this;
  }
  rd_writer& section(uint32_t type, const std::vector<uint32_t>& words) {
    std::string b(4 * words.size(), '\0');
    if (!words.empty()) std::memcpy(b.data(), words.data(), b.size());
    return raw(type, b);
  }
  rd_writer& gpu_id(uint32_t id) { return section(gpuvp::cp::RD_GPU_ID, {id}); }
  rd_writer& submit(const std::string& name = "test") { return raw(gpuvp::cp::RD_CMD, name + '\0'); }
  // GPUADDR {lo, size, hi} and its BUFFER_CONTENTS.
  rd_writer& buffer(uint64_t addr, const std::vector<uint32_t>& words) {
    section(gpuvp::cp::RD_GPUADDR, {uint32_t(addr), uint32_t(4 * words.size()), uint32_t(addr >> 32)});
    return section(gpuvp::cp::RD_BUFFER_CONTENTS, words);
  }
  rd_writer& ib(uint64_t addr, uint32_t dwords) {
    return section(gpuvp::cp::RD_CMDSTREAM_ADDR, {uint32_t(addr), dwords, uint32_t(addr >> 32)});
  }
  // An IB1 in a buffer of its own.
  rd_writer& ib_words(uint64_t addr, const std::vector<uint32_t>& words) { return buffer(addr, words).ib(addr, uint32_t(words.size())); }
  std::vector<uint8_t> vec() const { return std::vector<uint8_t>(bytes.begin(), bytes.end()); }

  // gzip member of the bytes (zlib's deflate with the gzip wrapper).
  std::string gz() const {
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, uLong(bytes.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = uInt(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
  }
  void save(const std::string& path, bool gzip = false) const {
    std::ofstream f(path, std::ios::binary);
    const std::string b = gzip ? gz() : bytes;
    f.write(b.data(), std::streamsize(b.size()));
  }

 private:
  void put(uint32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); }
};

}  // namespace cp_test
