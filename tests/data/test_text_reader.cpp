// data::read_text_file: the data loaders' wording over the project's one whole-file reader
// (util/text.h): "<path>: cannot open ..." and "<path>: file is empty" as DataError.
#include <gtest/gtest.h>

#include <string>

#include "common/test_support.h"
#include "data/text_reader.h"
#include "symgnn/error.h"

using namespace symgnn;

namespace {
std::string reader_error_of(const std::string& path) {
  try {
    data::read_text_file(path);
  } catch (const DataError& e) {
    return e.what();
  }
  return "no DataError";
}
}  // namespace

TEST(TextReader, ReadsTheWholeFile) {
  const std::string dir = symgnn::testing::scratch_dir("text_reader");
  const std::string path = symgnn::testing::write_file(dir, "r.csv", "1,2,3\r\n4,5,\xE9\n");
  EXPECT_EQ(data::read_text_file(path), "1,2,3\r\n4,5,\xE9\n");
}

TEST(TextReader, MissingAndEmptyFilesAreDataErrorsNamingThePath) {
  const std::string dir = symgnn::testing::scratch_dir("text_reader");
  EXPECT_EQ(reader_error_of(dir + "/absent.csv"),
            dir + "/absent.csv: cannot open (missing or unreadable file)");
  const std::string empty = symgnn::testing::write_file(dir, "empty.csv", "");
  EXPECT_EQ(reader_error_of(empty), empty + ": file is empty");
}

TEST(Quote, TextAsTypedBinaryAsBytes) {
  EXPECT_EQ(data::quote("génre"), "'génre'");  // UTF-8 as typed
  EXPECT_EQ(data::quote("日本"), "'日本'");
  EXPECT_EQ(data::quote("a\tb"), "'a\\x09b'");  // control bytes escaped
  EXPECT_EQ(data::quote("it's"), "'it\\x27s'");
  EXPECT_EQ(data::quote("\xC3"), "'\\xC3'");                    // a character cut short
  EXPECT_EQ(data::quote("\xC0\xAF"), "'\\xC0\\xAF'");           // an overlong form
  EXPECT_EQ(data::quote("\xED\xA0\x80"), "'\\xED\\xA0\\x80'");  // a surrogate
  // Cut at 40 bytes, never inside a character.
  const std::string long_id = std::string(39, 'x') + "é";
  EXPECT_EQ(data::quote(long_id), "'" + std::string(39, 'x') + "...'");
}
