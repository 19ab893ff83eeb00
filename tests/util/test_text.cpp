// The project's one whole-file reader and one fixed-precision formatter (util/text.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "util/text.h"

using namespace symgnn;

TEST(Text, ReadFileReturnsTheBytesUnchanged) {
  const std::string dir = symgnn::testing::scratch_dir("text");
  const std::string bytes = std::string("a,b\r\n\xE9t\xE9\n") + std::string(1, '\0') + "end";
  const std::string path = symgnn::testing::write_file(dir, "latin1.csv", bytes);
  std::string text;
  EXPECT_EQ(read_file(path, text), ReadStatus::ok);
  EXPECT_EQ(text, bytes);
  EXPECT_EQ(read_text_file(path), bytes);
  const std::string empty = symgnn::testing::write_file(dir, "empty.txt", "");
  text = "before";
  EXPECT_EQ(read_file(empty, text), ReadStatus::ok);
  EXPECT_EQ(text, "");
}

TEST(Text, ReadFileReportsAMissingFile) {
  const std::string path = symgnn::testing::scratch_dir("text") + "/absent.txt";
  std::string text = "unchanged";
  EXPECT_EQ(read_file(path, text), ReadStatus::cannot_open);
  EXPECT_EQ(text, "unchanged");
  try {
    read_text_file(path);
    FAIL() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open (missing or unreadable file)");
  }
}

TEST(Text, FixedWritesTheGivenDecimalsAndNaForNonFinite) {
  EXPECT_EQ(fixed(0.73571, 4), "0.7357");
  EXPECT_EQ(fixed(0.73575, 3), "0.736");
  EXPECT_EQ(fixed(-0.5, 4), "-0.5000");
  EXPECT_EQ(fixed(12.34, 1), "12.3");
  EXPECT_EQ(fixed(1023.6, 0), "1024");
  EXPECT_EQ(fixed(std::numeric_limits<double>::quiet_NaN(), 4), "n/a");
  EXPECT_EQ(fixed(std::numeric_limits<double>::infinity(), 4), "n/a");
}
