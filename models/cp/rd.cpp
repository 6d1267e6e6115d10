// SPDX-License-Identifier: Apache-2.0
#include "rd.h"
#include "gpuvp/text.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <zlib.h>

namespace gpuvp::cp {

namespace {
std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}
uint32_t u32_at(const std::vector<uint8_t>& b, uint64_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;  // captures are little-endian, as is every host gpuvp builds on
}
}  // namespace

const rd_capture::buffer* rd_capture::submit::find(uint64_t addr, uint64_t bytes) const {
  for (auto it = buffers.rbegin(); it != buffers.rend(); ++it)
    if (addr >= it->addr && addr - it->addr <= it->bytes.size() && bytes <= it->bytes.size() - (addr - it->addr)) return &*it;
  return nullptr;
}

int rd_capture::generation() const {
  if (gpu_id) return int(gpu_id / 100);
  return int((chip_id >> 24) & 0xff);
}

rd_capture rd_parse(const std::vector<uint8_t>& b, const std::string& origin) {
  rd_capture c;
  c.origin = origin;
  const uint64_t n = b.size();
  uint64_t off = 0;
  bool pending = false;  // a GPUADDR waits for its BUFFER_CONTENTS
  uint64_t pending_addr = 0, pending_size = 0;
  while (off < n) {
    auto fail = [&](const std::string& why) { throw rd_error(origin + ": offset " + hex(off) + ": " + why); };
    if (n - off < 8) fail("truncated section header (" + std::to_string(n - off) + " bytes left, 8 needed)");
    const uint32_t type = u32_at(b, off), size = u32_at(b, off + 4);
    if (type == 0xffffffffu && size == 0xffffffffu) {  // padding pair (redump.h)
      off += 8;
      continue;
    }
    const uint64_t body = off + 8;
    if (size > n - body)
      fail("section type " + std::to_string(type) + " has size " + std::to_string(size) + ", past the end of the file (" +
           std::to_string(n - body) + " bytes left)");
    auto word = [&](unsigned i) { return u32_at(b, body + 4ull * i); };
    auto need_submit = [&]() -> rd_capture::submit& {
      if (c.submits.empty()) {  // sections before the first CMD: an implicit first submit
        c.submits.emplace_back();
        c.submits.back().offset = off;
      }
      return c.submits.back();
    };
    switch (type) {
      case RD_CMD:
        c.submits.emplace_back();
        c.submits.back().offset = off;
        c.submits.back().cmd.assign(reinterpret_cast<const char*>(b.data() + body), size);
        while (!c.submits.back().cmd.empty() && c.submits.back().cmd.back() == '\0') c.submits.back().cmd.pop_back();
        pending = false;
        break;
      case RD_GPUADDR:
        if (size != 8 && size != 12) fail("GPUADDR section of " + std::to_string(size) + " bytes (8 or 12 expected)");
        need_submit();
        pending = true;
        pending_addr = word(0) | (size == 12 ? uint64_t(word(2)) << 32 : 0);
        pending_size = word(1);
        break;
      case RD_BUFFER_CONTENTS: {
        if (!pending) fail("BUFFER_CONTENTS without a GPUADDR before it");
        if (size > pending_size)
          fail("BUFFER_CONTENTS of " + std::to_string(size) + " bytes for a buffer of " + std::to_string(pending_size) + " bytes at " +
               hex(pending_addr));
        rd_capture::buffer buf;
        buf.addr = pending_addr;
        buf.offset = off;
        buf.bytes.assign(b.begin() + long(body), b.begin() + long(body + size));
        need_submit().buffers.push_back(std::move(buf));
        pending = false;
        break;
      }
      case RD_CMDSTREAM_ADDR: {
        if (size != 8 && size != 12) fail("CMDSTREAM_ADDR section of " + std::to_string(size) + " bytes (8 or 12 expected)");
        rd_capture::ib ib;
        ib.addr = word(0) | (size == 12 ? uint64_t(word(2)) << 32 : 0);
        ib.dwords = word(1);
        ib.offset = off;
        need_submit().ibs.push_back(ib);
        break;
      }
      case RD_GPU_ID:
        if (size < 4) fail("GPU_ID section of " + std::to_string(size) + " bytes (4 expected)");
        c.gpu_id = word(0);
        break;
      case RD_CHIP_ID:
        if (size != 8 && size != 4) fail("CHIP_ID section of " + std::to_string(size) + " bytes (8 expected)");
        c.chip_id = word(0) | (size == 8 ? uint64_t(word(1)) << 32 : 0);
        break;
      default:  // TEST, CONTEXT, CMDSTREAM, PARAM, FLUSH, shaders, log buffers, unknown: kept aside
        c.skipped[type]++;
        break;
    }
    off = body + size;
  }
  return c;
}

std::vector<uint8_t> rd_decompress(const std::string& in, const std::string& origin) {
  if (in.size() < 2 || uint8_t(in[0]) != 0x1f || uint8_t(in[1]) != 0x8b) {
    if (in.size() > rd_max_bytes) throw rd_error(origin + ": capture larger than " + std::to_string(rd_max_bytes >> 20) + " MiB");
    return std::vector<uint8_t>(in.begin(), in.end());
  }
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw rd_error(origin + ": cannot start zlib");
  std::vector<uint8_t> out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  std::string why;
  uint64_t left = in.size();
  uint8_t chunk[65536];
  int rc = Z_OK;
  while (why.empty()) {
    if (z.avail_in == 0) {
      if (left == 0) break;
      const uInt take = uInt(std::min<uint64_t>(left, 1u << 30));
      z.avail_in = take;
      left -= take;
    }
    z.next_out = chunk;
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    out.insert(out.end(), chunk, chunk + (sizeof chunk - z.avail_out));
    if (out.size() > rd_max_bytes)
      why = "decompressed capture larger than " + std::to_string(rd_max_bytes >> 20) + " MiB";
    else if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && left == 0) break;
      if (inflateReset(&z) != Z_OK) why = "zlib reset failed";  // another gzip member follows
    } else if (rc == Z_BUF_ERROR && z.avail_in == 0 && left == 0) {
      break;
    } else if (rc != Z_OK) {
      why = std::string("corrupt gzip data (") + (z.msg ? z.msg : "zlib error " + std::to_string(rc)) + ")";
    }
  }
  const uint64_t consumed = z.total_in;
  inflateEnd(&z);
  if (why.empty() && rc != Z_STREAM_END)
    why = "truncated gzip data (" + std::to_string(consumed) + " of " + std::to_string(in.size()) + " bytes used)";
  if (!why.empty()) throw rd_error(origin + ": " + why);
  return out;
}

std::vector<uint8_t> rd_read_file(const std::string& path) {
  const auto data = read_whole_file(path);
  if (!data) throw rd_error(path + ": cannot open capture");
  return rd_decompress(*data, path);
}

}  // namespace gpuvp::cp
