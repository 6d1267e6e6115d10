// SPDX-License-Identifier: Apache-2.0
// .rd captures: the reader (sections, submits, malformed files, gzip), the replay through
// `gpuvp run --workload X.rd` with gpuvp's firmware and Debian's a630 SQE firmware, the event
// pipe registers and CP_EVENT_WRITE with and without TIMESTAMP.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "afuc_asm.h"
#include "cp_bench.h"
#include "cp_test_util.h"
#include "gpuvp/config.h"
#include "rd.h"
#include "rd_writer.h"
#include "testing.h"

using namespace cp_test;
using namespace gpuvp;
using namespace gpuvp::cp;

namespace {

constexpr uint32_t SCRATCH0 = CP_SCRATCH_REG0;
// CP_MEM_TO_REG {REG | CNT << 19, src}: copies memory into registers, where the stats can see it.
std::vector<uint32_t> mem_to_reg(uint32_t reg, uint32_t cnt, uint64_t src) {
  return {t7(0x42, 3), reg | cnt << 19, uint32_t(src), uint32_t(src >> 32)};
}
std::vector<uint32_t> cat(std::initializer_list<std::vector<uint32_t>> parts) {
  std::vector<uint32_t> w;
  for (const auto& p : parts) w.insert(w.end(), p.begin(), p.end());
  return w;
}

std::string adreno_fw(const std::string& file) {
  const char* env = std::getenv("GPUVP_ADRENO_FW_DIR");
  return std::string(env ? env : GPUVP_ADRENO_FW_DIR_DEFAULT) + "/" + file;
}

struct run_result {
  int rc = -1;
  std::string out;       // stdout and stderr
  nlohmann::json stats;  // the --stats file (null if none was written)
};
// `gpuvp run --quiet --workload FILE --stats ... ARGS`. The stats file goes to the test's temporary
// folder under the running test's own name: never next to the workload (the real captures' folder
// may be read-only, and parameterised tests of one capture run in parallel).
run_result gpuvp_run(const std::string& workload, const std::string& args = "") {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(t->test_suite_name()) + "." + t->name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.') c = '_';
  const std::string stats = ::testing::TempDir() + name + ".stats.json";
  std::filesystem::remove(stats);
  const std::string cmd =
      gpuvp::testing::binary_path("gpuvp") + " run --quiet --workload " + workload + " --stats " + stats + " " + args + " 2>&1";
  const command_result c = run_command(cmd);
  run_result r;
  r.rc = c.rc;
  r.out = c.out;
  std::ifstream f(stats);
  if (f) r.stats = nlohmann::json::parse(f, nullptr, false);
  if (r.rc == 0 && !r.stats.is_object()) ADD_FAILURE() << "no readable stats file " << stats << " after: " << cmd;
  return r;
}
std::string reg_of(const run_result& r, uint32_t reg) {
  char k[16];
  std::snprintf(k, sizeof k, "0x%04x", reg);
  const nlohmann::json regs = r.stats.is_object() ? r.stats.value("cp_registers", nlohmann::json::object()) : nlohmann::json::object();
  return regs.contains(k) ? regs[k].get<std::string>() : "(not written)";
}
std::string path_for(const std::string& name) { return gpuvp::testing::binary_path(name); }

}  // namespace

// --- the reader -------------------------------------------------------------------------------

TEST(rdReader, EverySectionTypeAndSubmitsReusingAddresses) {
  rd_writer w;
  w.raw(RD_TEST, "hello").gpu_id(630);
  w.bytes.append("\xff\xff\xff\xff\xff\xff\xff\xff", 8);  // padding pair: skipped
  w.section(RD_CHIP_ID, {0x00010006, 0x6}).submit("first");
  w.section(RD_GPUADDR, {0x1000, 8});  // 8-byte GPUADDR: no high dword
  w.section(RD_BUFFER_CONTENTS, {1, 2});
  w.buffer(0x1'0000'2000ull, {3, 4, 5});  // above 4 GiB: placed as it is
  w.section(RD_CMDSTREAM_ADDR, {0x1000, 2});
  w.raw(RD_CONTEXT, "c").raw(RD_CMDSTREAM, "s").section(RD_PARAM, {0, 1, 32}).raw(RD_FLUSH, "");
  w.raw(RD_PROGRAM, "p").raw(RD_VERT_SHADER, "v").raw(RD_FRAG_SHADER, "f");
  w.raw(RD_SHADER_LOG_BUFFER, "").raw(RD_CP_LOG_BUFFER, "").raw(RD_WRBUFFER, "").raw(99, "x");
  w.section(RD_GPUADDR, {0x3000, 0x1000, 0});  // no contents follow: not a buffer
  w.submit("second").buffer(0x1000, {7, 8}).ib(0x1000, 1).ib(0x1004, 1);
  const rd_capture c = rd_parse(w.vec(), "t.rd");
  EXPECT_EQ(c.gpu_id, 630u);
  EXPECT_EQ(c.chip_id, 0x6'0001'0006ull);
  EXPECT_EQ(c.generation(), 6);
  ASSERT_EQ(c.submits.size(), 2u);
  EXPECT_EQ(c.submits[0].cmd, "first");
  ASSERT_EQ(c.submits[0].buffers.size(), 2u);
  EXPECT_EQ(c.submits[0].buffers[1].addr, 0x1'0000'2000ull);
  EXPECT_EQ(c.submits[0].buffers[1].bytes.size(), 12u);
  ASSERT_EQ(c.submits[0].ibs.size(), 1u);
  EXPECT_EQ(c.submits[0].ibs[0].addr, 0x1000u);
  EXPECT_EQ(c.submits[0].ibs[0].dwords, 2u);
  // The second submit has its own contents at the same address.
  ASSERT_EQ(c.submits[1].buffers.size(), 1u);
  const auto* b = c.submits[1].find(0x1004, 4);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->bytes[4], 8);
  EXPECT_EQ(c.submits[1].ibs.size(), 2u);
  EXPECT_EQ(c.submits[0].find(0x3000, 4), nullptr);
  EXPECT_EQ(c.submits[0].find(0x1004, 8), nullptr);  // runs past the end of the buffer
  for (uint32_t t : {1u, 4u, 5u, 7u, 8u, 9u, 10u, 11u, 15u, 16u, 17u, 99u}) EXPECT_EQ(c.skipped.at(t), 1u) << t;
}

TEST(rdReader, GenerationFromChipIdWithoutGpuId) {
  rd_writer w;
  w.section(RD_CHIP_ID, {0x05030000, 0});  // a530: core 5 in bits 31:24
  EXPECT_EQ(rd_parse(w.vec(), "t.rd").generation(), 5);
  EXPECT_EQ(rd_parse({}, "t.rd").generation(), 0);
}

TEST(rdReader, MalformedFilesNameTheSectionOffset) {
  auto error_of = [](const std::string& bytes) {
    try {
      rd_parse(std::vector<uint8_t>(bytes.begin(), bytes.end()), "bad.rd");
    } catch (const rd_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  rd_writer ok;
  ok.gpu_id(630);  // 12 bytes
  EXPECT_EQ(error_of(ok.bytes + std::string("\x02\0\0", 3)), "bad.rd: offset 0xc: truncated section header (3 bytes left, 8 needed)");
  rd_writer past = ok;
  past.raw(RD_CMD, "abc");
  past.bytes.resize(past.bytes.size() - 1);
  EXPECT_EQ(error_of(past.bytes), "bad.rd: offset 0xc: section type 2 has size 3, past the end of the file (2 bytes left)");
  rd_writer ga = ok;
  ga.section(RD_GPUADDR, {1});
  EXPECT_NE(error_of(ga.bytes).find("offset 0xc: GPUADDR section of 4 bytes"), std::string::npos);
  rd_writer orphan = ok;
  orphan.section(RD_BUFFER_CONTENTS, {1});
  EXPECT_NE(error_of(orphan.bytes).find("offset 0xc: BUFFER_CONTENTS without a GPUADDR"), std::string::npos);
  rd_writer big = ok;
  big.section(RD_GPUADDR, {0x1000, 4, 0}).section(RD_BUFFER_CONTENTS, {1, 2});
  EXPECT_NE(error_of(big.bytes).find("offset 0x20: BUFFER_CONTENTS of 8 bytes for a buffer of 4 bytes"), std::string::npos);
  rd_writer cs = ok;
  cs.section(RD_CMDSTREAM_ADDR, {0x1000});
  EXPECT_NE(error_of(cs.bytes).find("CMDSTREAM_ADDR section of 4 bytes"), std::string::npos);
}

TEST(rdReader, GzipRoundTripAndCorruptOrTruncatedData) {
  rd_writer w;
  w.gpu_id(640).submit().buffer(0x2000, {1, 2, 3}).ib(0x2000, 3);
  EXPECT_EQ(rd_decompress(w.gz(), "t.rd.gz"), w.vec());
  EXPECT_EQ(rd_decompress(w.bytes, "t.rd"), w.vec());                               // not gzip: as it is
  EXPECT_EQ(rd_decompress(w.gz() + w.gz(), "t.rd.gz").size(), 2 * w.bytes.size());  // two members
  const std::string gz = w.gz();
  try {
    rd_decompress(gz.substr(0, gz.size() / 2), "t.rd.gz");
    ADD_FAILURE() << "truncated gzip accepted";
  } catch (const rd_error& e) {
    EXPECT_NE(std::string(e.what()).find("t.rd.gz: truncated gzip data"), std::string::npos) << e.what();
  }
  std::string bad = gz;
  bad[12] = char(bad[12] ^ 0xff);
  bad[13] = char(bad[13] ^ 0x55);
  EXPECT_THROW(rd_decompress(bad, "t.rd.gz"), rd_error);
}

// --- the replay with gpuvp's firmware -----------------------------------------------------------

// Two submits with different IB contents at the same address; events with and without TIMESTAMP
// written to memory, then copied into scratch registers by CP_MEM_TO_REG so that cp_registers
// shows them; packets without effect are counted.
TEST(rdReplay, SubmitsReuseAddressesAndEventWritesFollowMesa) {
  const uint64_t ib = 0x100000, data = 0x200000;
  const uint32_t rb_done_ts = 0x16;
  const std::vector<uint32_t> first =
      cat({{t4(SCRATCH0, 1), 0x11},
           {t7(0x46, 4), rb_done_ts, uint32_t(data), 0, 0x1234},                     // value, no TIMESTAMP
           {t7(0x3c, 6), 0x3 | 1u << 4, uint32_t(data), 0, 0x1234, 0xffffffff, 16},  // wait for it (EQ, memory)
           {t7(0x46, 4), rb_done_ts | 1u << 30, uint32_t(data + 8), 0, 0x5555},      // TIMESTAMP instead of 0x5555
           mem_to_reg(SCRATCH0 + 1, 1, data),
           mem_to_reg(SCRATCH0 + 2, 2, data + 8),
           {t7(0x26, 0), t7(0x65, 1), 0xc}});  // CP_WAIT_FOR_IDLE, CP_SET_MARKER: no effect, counted
  rd_writer w;
  w.gpu_id(630).submit().ib_words(ib, first).submit().ib_words(ib, {t4(SCRATCH0, 1), 0x22});
  const std::string f = path_for("rd_two_submits.rd.gz");
  w.save(f, true);
  const run_result r = gpuvp_run(f);
  ASSERT_EQ(r.rc, 0) << r.out;
  // packets: the ring's CP_INDIRECT_BUFFER and the IB's own
  EXPECT_NE(r.out.find("submit 0: 1 IBs, 9 packets, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("submit 1: 1 IBs, 2 packets, "), std::string::npos) << r.out;
  EXPECT_EQ(reg_of(r, SCRATCH0), "0x00000022");
  EXPECT_EQ(reg_of(r, SCRATCH0 + 1), "0x00001234");
  const std::string ts = reg_of(r, SCRATCH0 + 2);
  EXPECT_NE(ts, "0x00005555");
  EXPECT_NE(ts, "0x00000000");                       // a timestamp in CP cycles, past 0 by then
  EXPECT_EQ(reg_of(r, SCRATCH0 + 3), "0x00000000");  // its high dword
  EXPECT_EQ(r.stats.at("cp.packets_noop").get<double>(), 2);
  EXPECT_EQ(r.stats.at("cp.events").get<double>(), 2);

  // cp.rd.submits=1: only the first submit.
  const run_result one = gpuvp_run(f, "--set cp.rd.submits=1");
  ASSERT_EQ(one.rc, 0) << one.out;
  EXPECT_EQ(one.out.find("submit 1:"), std::string::npos) << one.out;
  EXPECT_EQ(reg_of(one, SCRATCH0), "0x00000011");
}

TEST(rdReplay, IbsLimitAndA5xxCapture) {
  rd_writer w;
  w.gpu_id(530).submit().ib_words(0x100000, {t4(SCRATCH0, 1), 1}).ib_words(0x101000, {t4(SCRATCH0, 1), 2});
  const std::string f = path_for("rd_a5xx.rd");
  w.save(f);
  const run_result all = gpuvp_run(f);
  ASSERT_EQ(all.rc, 0) << all.out;
  // a5xx: the PFP runs CP_INDIRECT_BUFFER itself; packets counts what the ME executes
  EXPECT_NE(all.out.find("submit 0: 2 IBs, 2 packets"), std::string::npos) << all.out;
  EXPECT_EQ(reg_of(all, SCRATCH0), "0x00000002");
  EXPECT_TRUE(all.stats.contains("cp.pfp.instructions"));  // PFP + ME: a5xx
  const run_result one = gpuvp_run(f, "--set cp.rd.ibs=1");
  ASSERT_EQ(one.rc, 0) << one.out;
  EXPECT_NE(one.out.find("submit 0: 1 IBs, 1 packets"), std::string::npos) << one.out;
  EXPECT_EQ(reg_of(one, SCRATCH0), "0x00000001");
}

// Debian's a530 PFP + ME firmware (cp.pfp_firmware / cp.firmware) boots with CP_ME_INIT as msm's
// a5xx_me_init emits it and runs a self-made a5xx capture to the end: two IB1s, PKT4 writes of
// several registers, CP_MEM_WRITE, CP_WAIT_FOR_IDLE, CP_NOP, CP_EVENT_WRITE.
TEST(rdReplay, A5xxRealFirmwareRunsToTheEnd) {
  const std::string pfp = adreno_fw("a530_pfp.fw"), me = adreno_fw("a530_pm4.fw");
  if (!std::filesystem::exists(pfp) || !std::filesystem::exists(me))
    GTEST_SKIP() << pfp << " / " << me << " not found (tools/fetch-adreno-firmware.sh DIR; GPUVP_ADRENO_FW_DIR)";
  rd_writer w;
  w.gpu_id(530).submit().buffer(0x200000, std::vector<uint32_t>(16, 0));
  w.ib_words(0x100000, {t4(SCRATCH0, 3), 0x11, 0x22, 0x33, t7(0x3d, 3), 0x200000, 0, 0xabcd, t7(0x26, 0), t7(0x10, 1), 0xdead, t7(0x46, 4),
                        0x4, 0x200010, 0, 0x77});
  w.ib_words(0x101000, {t4(SCRATCH0 + 3, 1), 0x44});
  const std::string f = path_for("rd_a5xx_real_fw.rd");
  w.save(f);
  const run_result r = gpuvp_run(f, "--set cp.firmware=" + me + " --set cp.pfp_firmware=" + pfp);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("submit 0: 2 IBs, "), std::string::npos) << r.out;
  EXPECT_EQ(reg_of(r, SCRATCH0), "0x00000011");
  EXPECT_EQ(reg_of(r, SCRATCH0 + 1), "0x00000022");
  EXPECT_EQ(reg_of(r, SCRATCH0 + 2), "0x00000033");
  EXPECT_EQ(reg_of(r, SCRATCH0 + 3), "0x00000044");                 // the second IB1: the PFP left the first (IN_IB_END)
  EXPECT_EQ(r.stats.at("cp.packets.CP_ME_INIT").get<double>(), 1);  // the ME ran msm's CP_ME_INIT
  EXPECT_EQ(r.stats.at("cp.packets.CP_MEM_WRITE").get<double>(), 1);
  EXPECT_EQ(r.stats.at("cp.packets.CP_EVENT_WRITE").get<double>(), 1);
  EXPECT_EQ(r.stats.at("cp.ib_ends").get<double>(), 2);
}

TEST(rdReplay, InputErrorsExitTwo) {
  rd_writer outside;  // the IB's buffer is not in the capture
  outside.gpu_id(630).submit().buffer(0x100000, {0, 0}).ib(0x100004, 4);
  outside.save(path_for("rd_outside.rd"));
  run_result r = gpuvp_run(path_for("rd_outside.rd"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("submit 0, IB 0: IB1 at 0x100004 (4 dwords, section at offset 0x3d) lies outside every buffer"), std::string::npos)
      << r.out;

  rd_writer a4;
  a4.gpu_id(420).submit();
  a4.save(path_for("rd_a4xx.rd"));
  r = gpuvp_run(path_for("rd_a4xx.rd"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("GPU 420 is a4xx"), std::string::npos) << r.out;

  rd_writer trunc;
  trunc.gpu_id(630).submit().raw(RD_BUFFER_CONTENTS, "abcd");
  trunc.bytes.resize(trunc.bytes.size() - 2);
  trunc.save(path_for("rd_trunc.rd"), true);
  r = gpuvp_run(path_for("rd_trunc.rd"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("rd_trunc.rd: offset 0x19: section type 12 has size 4, past the end"), std::string::npos) << r.out;
}

TEST(rdReplay, FaultsAndHangsExitOneNamingSubmitIbAndOffset) {
  rd_writer unk;  // PKT4, then an opcode gpuvp's firmware does not know
  unk.gpu_id(630).submit().ib_words(0x100000, {t4(SCRATCH0, 1), 5, t7(0x7e, 0), t7(0x10, 0)});
  unk.save(path_for("rd_unknown.rd"));
  run_result r = gpuvp_run(path_for("rd_unknown.rd"));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("unknown PM4 opcode 0x0000007e"), std::string::npos) << r.out;
  // the fault came with the header at dword 2: 3 dwords consumed
  EXPECT_NE(r.out.find("submit 0, IB 0 at 0x100000: stopped at dword offset 3 of 4 (CP fault: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("submit 0: "), std::string::npos) << r.out;  // the submit did not end

  rd_writer hang;  // waits for memory that never changes
  hang.gpu_id(630).submit().ib_words(0x100000, {t7(0x3c, 6), 0x3 | 1u << 4, 0x200000, 0, 1, 0xffffffff, 16});
  hang.save(path_for("rd_hang.rd"));
  r = gpuvp_run(path_for("rd_hang.rd"), "--set cp.rd.hang_timeout=20us");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("submit 0, IB 0 at 0x100000: stopped at dword offset 7 of 7 (hang: no packet for 20 us"), std::string::npos)
      << r.out;
}

// --- the event pipe (a6xx pipe registers 0xe7..0xeb, Mesa adreno_pipe_regs.xml) ---------------

// A firmware whose CP_EVENT_WRITE hands its payload to the pipe registers as they come:
// EVENT_CMD, EVENT_TS_ADDR lo/hi, EVENT_TS_CTRL, EVENT_TS_DATA ($addr advances per write).
struct rdEventPipe : gpuvp::testing::sim_test {};
TEST_F(rdEventPipe, TimestampOrDataGoesToTheAddressAndInterruptRaises) {
  const std::string fw = path_for("rd_event_pipe.fw");
  write_words(fw, afuc_assemble("[00000001]\n[00000000]\nboot:\n\twaitin\n\tmov $01, $data\n"
                                "CP_EVENT_WRITE:\n\tmov $addr, 0xe700 << 16\n\t(rep)mov $data, $data\n"
                                "\twaitin\n\tmov $01, $data\n",
                                6, "pipe.asm"));
  config::global().set("bench.cp.firmware", fw, "test");
  std::unique_ptr<cp_bench> b = std::make_unique<cp_bench>("bench", [](cp_bench& b) {
    b.submit({t7(0x46, 5), 0x5, 0x8000, 0, 3u << 8, 0x1234});          // TS_WRITE event, data
    b.submit({t7(0x46, 5), 0x5, 0x9000, 0, 3u << 8 | 2 | 4, 0x5555});  // TIMESTAMP + INTERRUPT
    ASSERT_TRUE(b.wait_idle());
    EXPECT_EQ(b.mem.read32(0x8000), 0x1234u);
    const uint32_t ts = b.mem.read32(0x9000);
    EXPECT_NE(ts, 0x5555u);
    EXPECT_GT(ts, 0u);
    EXPECT_EQ(b.read_reg(CP_INT_STATUS) & INT_EVENT, INT_EVENT);
  });
  sc_core::sc_start();
  EXPECT_EQ(b->cp.pipe_events.value(), 2u);
  EXPECT_EQ(b->cp.pipe_ts_writes.value(), 2u);
  EXPECT_EQ(b->cp.pipe_other.value(), 0u);
  EXPECT_TRUE(b->cp.modelled_errors().empty());
}

// --- the real captures (Mesa's test corpus: ../shared/real/adreno) ------------------------------

struct capture_case {
  const char* name;
  bool real_firmware;
};
void PrintTo(const capture_case& c, std::ostream* os) {  // readable, stable ctest names
  *os << c.name << (c.real_firmware ? " on a630_sqe.fw" : " on gpuvp's firmware");
}
class rdRealCapture : public ::testing::TestWithParam<capture_case> {};

// The first IB1 of submit 0 (expected.json's scope): every register it writes directly by PKT4
// has the capture's last value in cp_registers.
TEST_P(rdRealCapture, FirstIbRegistersMatchTheCapture) {
  const std::string cap = gpuvp::testing::real_data_path(std::string("adreno/") + GetParam().name + ".rd.gz");
  const std::string expected = gpuvp::testing::real_data_path("adreno/expected.json");
  if (cap.empty() || expected.empty()) GTEST_SKIP() << gpuvp::testing::real_data_missing("adreno/expected.json");
  std::string args = "--set cp.rd.submits=1 --set cp.rd.ibs=1";
  if (GetParam().real_firmware) {
    const std::string fw = adreno_fw("a630_sqe.fw");
    if (!std::filesystem::exists(fw)) GTEST_SKIP() << fw << " not found (tools/fetch-adreno-firmware.sh DIR; GPUVP_ADRENO_FW_DIR)";
    args += " --set cp.firmware=" + fw;
  }
  const run_result r = gpuvp_run(cap, args);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("submit 0: 1 IBs, "), std::string::npos) << r.out;
  std::ifstream ef(expected);
  const nlohmann::json e = nlohmann::json::parse(ef)[GetParam().name]["registers"];
  ASSERT_GT(e.size(), 50u);
  int wrong = 0;
  for (auto it = e.begin(); it != e.end(); ++it) {
    const nlohmann::json& regs = r.stats.at("cp_registers");
    const std::string got = regs.contains(it.key()) ? regs.at(it.key()).get<std::string>() : "(not written)";
    if (got != it.value().get<std::string>()) {
      ADD_FAILURE() << GetParam().name << " register " << it.key() << ": expected " << it.value() << ", got " << got;
      if (++wrong > 10) break;
    }
  }
}

// The whole capture runs to the end: one line per submit (shadow has 5, the dEQP-VK capture 2),
// no fault, no hang.
TEST_P(rdRealCapture, EverySubmitRunsToTheEnd) {
  const std::string cap = gpuvp::testing::real_data_path(std::string("adreno/") + GetParam().name + ".rd.gz");
  if (cap.empty()) GTEST_SKIP() << gpuvp::testing::real_data_missing(std::string("adreno/") + GetParam().name + ".rd.gz");
  std::string args;
  if (GetParam().real_firmware) {
    const std::string fw = adreno_fw("a630_sqe.fw");
    if (!std::filesystem::exists(fw)) GTEST_SKIP() << fw << " not found (tools/fetch-adreno-firmware.sh DIR; GPUVP_ADRENO_FW_DIR)";
    args = "--set cp.firmware=" + fw;
  }
  const run_result r = gpuvp_run(cap, args);
  ASSERT_EQ(r.rc, 0) << r.out;
  const int submits = std::string(GetParam().name) == "shadow" ? 5 : 2;
  for (int s = 0; s < submits; s++) EXPECT_NE(r.out.find("submit " + std::to_string(s) + ": "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("submit " + std::to_string(submits) + ": "), std::string::npos) << r.out;
  if (GetParam().real_firmware) {
    EXPECT_GT(r.stats.at("cp.pipe_events").get<double>(), 0);  // CP_EVENT_WRITE through the event pipe
    EXPECT_GT(r.stats.at("cp.ib_ends").get<double>(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(captures, rdRealCapture,
                         ::testing::Values(capture_case{"shadow", false}, capture_case{"shadow", true},
                                           capture_case{"deqp-vk-indirect-draw-count", false},
                                           capture_case{"deqp-vk-indirect-draw-count", true}),
                         [](const ::testing::TestParamInfo<capture_case>& i) {
                           std::string n = std::string(i.param.name).substr(0, 4) + (i.param.real_firmware ? "_a630_fw" : "_gpuvp_fw");
                           return n;
                         });
