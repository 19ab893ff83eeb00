#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/strings.h"

using namespace symgnn;

TEST(AtomicFile, ReplacesWholeOrNotAtAll) {
  const auto dir = symgnn::testing::scratch_dir("atomic");
  const std::string path = dir + "/out.txt";
  write_text_atomic(path, "first\n");
  EXPECT_THROW(write_file_atomic(path,
                                 [](std::ostream& out) {
                                   out << "partial";
                                   throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), "first\n");  // the failed write left the old file intact
  int leftovers = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    leftovers += e.path().filename() != "out.txt" && e.path().filename() != "checksums.sha256";
  EXPECT_EQ(leftovers, 0);
  EXPECT_THROW(write_text_atomic(dir + "/no/such/dir/x", "x"), Error);
}

TEST(Strings, ParseWholeStringsOnly) {
  int64_t i = 0;
  double d = 0;
  EXPECT_TRUE(parse_int("42", i));
  EXPECT_EQ(i, 42);
  EXPECT_FALSE(parse_int("42a", i));
  EXPECT_FALSE(parse_int("", i));
  EXPECT_FALSE(parse_int("99999999999999999999999", i));
  EXPECT_TRUE(parse_double("3.5", d));
  EXPECT_FALSE(parse_double("3.5.1", d));
  EXPECT_EQ(trim("  a b \r\n"), "a b");
  EXPECT_EQ(split("a,,b", ',').size(), 3u);
}
