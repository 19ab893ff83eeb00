// The streaming atomic writer (util/atomic_file.h, StreamingFileWriter): files larger than
// its buffer arrive whole or not at all, with the same one-line errors and no temporary
// left behind as the in-memory writer.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/fault_injection.h"

using namespace symgnn;
namespace fs = std::filesystem;

namespace {

struct WriterFaults {
  explicit WriterFaults(const std::string& spec) { fault::configure(spec); }
  ~WriterFaults() { fault::configure(""); }
};

int entries_in(const std::string& dir) {
  int n = 0;
  for (auto it = fs::directory_iterator(dir); it != fs::directory_iterator(); ++it) ++n;
  return n;
}

std::string numbered_lines(int n) {
  std::string s;
  for (int k = 0; k < n; ++k) s += std::to_string(k) + ",line\n";
  return s;
}

}  // namespace

TEST(StreamingWriter, WritesThroughASmallBufferAndRenamesOnCommit) {
  const std::string dir = symgnn::testing::scratch_dir("stream_writer");
  const std::string path = dir + "/big.csv";
  const std::string text = numbered_lines(5000);
  StreamingFileWriter w(path, 64);  // many flushes
  for (size_t k = 0; k < text.size(); k += 37) w.write(std::string_view(text).substr(k, 37));
  EXPECT_FALSE(fs::exists(path));  // not visible before commit
  w.commit();
  EXPECT_EQ(w.bytes_written(), text.size());
  EXPECT_EQ(symgnn::testing::read_file(path), text);
  EXPECT_EQ(entries_in(dir), 1);  // no temporary, no checksum list (an export)
}

TEST(StreamingWriter, DestroyedWithoutCommitLeavesThePreviousFile) {
  const std::string dir = symgnn::testing::scratch_dir("stream_writer_abandon");
  const std::string path = dir + "/out.csv";
  symgnn::testing::write_file(dir, "out.csv", "previous\n");
  try {
    StreamingFileWriter w(path, 16);
    w.write(numbered_lines(100));
    throw std::runtime_error("generator failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(symgnn::testing::read_file(path), "previous\n");
  EXPECT_EQ(entries_in(dir), 1);
}

TEST(StreamingWriter, InjectedFailuresAreOneLineAndLeaveNoTemporary) {
  for (const char* error : {"ENOSPC", "EDQUOT", "EIO", "EACCES", "EROFS"}) {
    const std::string dir = symgnn::testing::scratch_dir("stream_writer_faults");
    const std::string path = dir + "/f.csv";
    symgnn::testing::write_file(dir, "f.csv", "previous\n");
    {
      const WriterFaults faults(std::string("write:") + error + ":f.csv");
      try {
        StreamingFileWriter w(path, 128);
        w.write(numbered_lines(1000));
        w.commit();
        ADD_FAILURE() << error;
      } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(path + ": cannot write: ", 0), 0u) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      }
    }
    EXPECT_EQ(entries_in(dir), 1) << error;
    EXPECT_EQ(symgnn::testing::read_file(path), "previous\n") << error;
  }
}

TEST(StreamingWriter, AMissingFolderIsAnError) {
  const std::string dir = symgnn::testing::scratch_dir("stream_writer_missing");
  EXPECT_THROW(StreamingFileWriter(dir + "/no/such/x.csv"), Error);
}
