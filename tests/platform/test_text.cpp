// SPDX-License-Identifier: Apache-2.0
// The text toolkit (gpuvp/text.h): whole files byte for byte, words, shell quoting that a real
// POSIX shell reads back.
#include <fstream>
#include <gtest/gtest.h>
#include "gpuvp/text.h"
#include "testing.h"

using namespace gpuvp;

TEST(text, read_whole_file_keeps_every_byte_and_says_when_it_cannot_open) {
  const std::string path = ::testing::TempDir() + "/text_bytes.bin";
  const std::string bytes("a\0b\r\n\xff\n", 7);  // a NUL, CR LF, a byte that is not UTF-8
  std::ofstream(path, std::ios::binary) << bytes;
  const auto text = read_whole_file(path);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, bytes);
  EXPECT_EQ(read_whole_file(::testing::TempDir() + "/no/such/file"), std::nullopt);
  std::ofstream(::testing::TempDir() + "/text_empty.txt");
  EXPECT_EQ(read_whole_file(::testing::TempDir() + "/text_empty.txt"), std::string());
}

TEST(text, split_words_splits_at_any_white_space) {
  EXPECT_EQ(split_words("  copy\t0x10  0x20\n16 "), (std::vector<std::string>{"copy", "0x10", "0x20", "16"}));
  EXPECT_TRUE(split_words("").empty());
  EXPECT_TRUE(split_words(" \t\r\n").empty());
}

TEST(text, shell_quote_leaves_plain_words_and_quotes_the_rest) {
  EXPECT_EQ(shell_quote("run"), "run");
  EXPECT_EQ(shell_quote("--set=a.b:1,/x@y%"), "--set=a.b:1,/x@y%");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("run", true), "'run'");
}

// What /bin/sh makes of the quoted words is the words themselves.
TEST(text, a_shell_reads_quoted_words_back) {
  const std::vector<std::string> words = {"plain",       "two words", "it's", "$HOME",     "`id`",       "a\"b",
                                          "back\\slash", "*",         "",     "new\nline", "semi;colon", "&&"};
  std::string cmd = "printf '[%s]'";
  std::string want;
  for (const auto& w : words) {
    cmd += " " + shell_quote(w);
    want += "[" + w + "]";
  }
  const auto r = gpuvp::testing::run_command(cmd);
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, want);
}
