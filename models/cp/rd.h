// SPDX-License-Identifier: Apache-2.0
// Mesa freedreno command-stream captures (.rd, .rd.gz; format: Mesa src/freedreno/common/redump.h,
// docs/formats/rd.md): sections {u32 type, u32 size, size bytes}, grouped into submits. No SystemC.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuvp::cp {

// Section types of redump.h.
enum rd_section : uint32_t {
  RD_NONE = 0,
  RD_TEST = 1,
  RD_CMD = 2,
  RD_GPUADDR = 3,
  RD_CONTEXT = 4,
  RD_CMDSTREAM = 5,
  RD_CMDSTREAM_ADDR = 6,
  RD_PARAM = 7,
  RD_FLUSH = 8,
  RD_PROGRAM = 9,
  RD_VERT_SHADER = 10,
  RD_FRAG_SHADER = 11,
  RD_BUFFER_CONTENTS = 12,
  RD_GPU_ID = 13,
  RD_CHIP_ID = 14,
  RD_SHADER_LOG_BUFFER = 15,
  RD_CP_LOG_BUFFER = 16,
  RD_WRBUFFER = 17,
};

struct rd_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Limits: a capture bigger than this (after decompression) is refused.
constexpr uint64_t rd_max_bytes = uint64_t(1) << 30;

struct rd_capture {
  struct buffer {  // GPUADDR + BUFFER_CONTENTS: bytes at a GPU address
    uint64_t addr = 0;
    std::vector<uint8_t> bytes;
    uint64_t offset = 0;  // file offset of the BUFFER_CONTENTS section
  };
  struct ib {  // CMDSTREAM_ADDR: one IB1
    uint64_t addr = 0;
    uint32_t dwords = 0;
    uint64_t offset = 0;
  };
  struct submit {
    std::string cmd;              // the CMD section's text (process name)
    std::vector<buffer> buffers;  // in file order: a later buffer at the same address wins
    std::vector<ib> ibs;
    uint64_t offset = 0;
    // The buffer that holds [addr, addr + bytes), searched from the last; nullptr if none.
    const buffer* find(uint64_t addr, uint64_t bytes) const;
  };
  std::vector<submit> submits;
  uint32_t gpu_id = 0;                   // GPU_ID (e.g. 630); 0: absent
  uint64_t chip_id = 0;                  // CHIP_ID (core << 24 | major << 16 | minor << 8 | patch); 0: absent
  std::map<uint32_t, uint64_t> skipped;  // section type -> count of sections kept aside
  std::string origin;
  // The CP generation: gpu_id / 100, else CHIP_ID's core; 0 when neither says.
  int generation() const;
};

// Parses capture bytes (already decompressed). Errors throw rd_error "origin: offset 0xN: why".
rd_capture rd_parse(const std::vector<uint8_t>& bytes, const std::string& origin);
// Reads a file, gunzipping it when it starts with the gzip magic; at most rd_max_bytes.
std::vector<uint8_t> rd_read_file(const std::string& path);
// The same for bytes already read (origin names them in messages).
std::vector<uint8_t> rd_decompress(const std::string& bytes, const std::string& origin);

}  // namespace gpuvp::cp
