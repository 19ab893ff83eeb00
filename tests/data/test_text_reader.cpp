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
  EXPECT_EQ(reader_error_of(dir + "/absent.csv"), dir + "/absent.csv: cannot open (missing or unreadable file)");
  const std::string empty = symgnn::testing::write_file(dir, "empty.csv", "");
  EXPECT_EQ(reader_error_of(empty), empty + ": file is empty");
}
