// SPDX-License-Identifier: Apache-2.0
// Real Adreno firmware (Debian firmware-qcom-soc, fetched by tools/fetch-adreno-firmware.sh):
// disassembly covers every reachable instruction and the round trip through the assembler is
// exact. Skipped when the blobs are absent.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "afuc.h"
#include "afuc_asm.h"

using namespace gpuvp::cp;

namespace {
std::string fw_dir() {
  if (const char* e = std::getenv("GPUVP_ADRENO_FW_DIR")) return e;
  return GPUVP_ADRENO_FW_DIR_DEFAULT;
}

std::vector<uint32_t> load_or_skip(const std::string& name, bool& ok) {
  const std::string path = fw_dir() + "/" + name;
  ok = std::filesystem::exists(path);
  if (!ok) return {};
  return read_words(path);
}

#define LOAD_FW(var, name)                   \
  bool have_##var = false;                   \
  auto var = load_or_skip(name, have_##var); \
  if (!have_##var)                           \
    GTEST_SKIP() << name << " not found in " << fw_dir() << " (run tools/fetch-adreno-firmware.sh DIR and set GPUVP_ADRENO_FW_DIR)";

}  // namespace

// a630 and a650: the trailing jump table, every reachable word decodes, exact round trip.
static void full_decode_round_trip(const std::vector<uint32_t>& w, const char* name) {
  afuc_image img = afuc_split(w);
  ASSERT_TRUE(img.has_jumptable) << name;
  disasm_result d = afuc_disassemble(w, 6);
  EXPECT_GT(d.reachable, 7000u) << name;
  EXPECT_EQ(d.unknown_reachable, 0u) << name;
  EXPECT_EQ(afuc_assemble(d.text, 6, name), w) << name;
}

TEST(cpAdrenoFirmware, A630SqeRoundTripAndFullDecode) {
  LOAD_FW(w, "a630_sqe.fw");
  full_decode_round_trip(w, "a630_sqe.fw");
}

TEST(cpAdrenoFirmware, A650SqeRoundTripAndFullDecode) {
  LOAD_FW(w, "a650_sqe.fw");
  full_decode_round_trip(w, "a650_sqe.fw");
}

TEST(cpAdrenoFirmware, A660SqeRoundTrip) {
  LOAD_FW(w, "a660_sqe.fw");
  // a660 has no trailing jump table: listed as .nojumptable; the entry points come from
  // running its boot code, which writes the table through PACKET_TABLE_WRITE.
  disasm_result d = afuc_disassemble(w, 6);
  EXPECT_NE(d.text.find(".nojumptable"), std::string::npos);
  EXPECT_NE(d.text.find("CP_NOP:"), std::string::npos);
  EXPECT_GT(d.reachable, 10000u);  // nearly all of the image once every encoding decodes
  EXPECT_EQ(afuc_assemble(d.text, 6, "a660_sqe.asm"), w);
  // setbit/clrbit (10010), jump $reg (110111) and the register setbit (2-src sub-op 0x12)
  // decode: every reachable word is known.
  EXPECT_EQ(d.unknown_reachable, 0u);
  EXPECT_NE(d.text.find("setbit $14, $14, $03"), std::string::npos);
}

TEST(cpAdrenoFirmware, A530PfpAndPm4RoundTrip) {
  LOAD_FW(pfp, "a530_pfp.fw");
  LOAD_FW(pm4, "a530_pm4.fw");
  for (auto* w : {&pfp, &pm4}) {
    afuc_image img = afuc_split(*w);
    ASSERT_TRUE(img.has_jumptable);
    disasm_result d = afuc_disassemble(*w, 5);
    EXPECT_GT(d.reachable, 3500u);
    EXPECT_EQ(afuc_assemble(d.text, 5, "a530.asm"), *w);
    // jump $reg (110111) and jumpa (111001) decode: every reachable word is known.
    EXPECT_EQ(d.unknown_reachable, 0u);
  }
}
