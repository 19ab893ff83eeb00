#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/fault_injection.h"
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

// link_file_atomic: the same file as write_text_atomic would leave (its bytes, listed in the
// folder's manifest, so it reads back verified), but one inode with its source; a later
// atomic write of either name replaces that name alone.
TEST(AtomicFile, ALinkedFileIsTheWrittenOneOnDiskOnce) {
  const auto dir = symgnn::testing::scratch_dir("atomic_link");
  std::filesystem::create_directories(dir + "/run0");
  const std::string from = dir + "/run0/model.pt", to = dir + "/model.pt";
  write_text_atomic(from, "weights v1\n");
  write_text_atomic(to, "an older model\n");
  link_file_atomic(from, to, read_verified_file(from));
  EXPECT_EQ(read_verified_file(to), "weights v1\n");
  // One inode, where the scratch folder's file system takes hard links (else the bytes were
  // written, the fallback).
  std::error_code no_links;
  std::filesystem::create_hard_link(from, dir + "/probe", no_links);
  if (!no_links) {
    std::filesystem::remove(dir + "/probe");
    EXPECT_TRUE(std::filesystem::equivalent(from, to));
    EXPECT_EQ(std::filesystem::hard_link_count(to), 2u);
  }
  // The source rewritten: the linked name keeps the bytes it was given, and verifies.
  write_text_atomic(from, "weights v2\n");
  EXPECT_FALSE(std::filesystem::equivalent(from, to));
  EXPECT_EQ(read_verified_file(to), "weights v1\n");
  EXPECT_EQ(read_verified_file(from), "weights v2\n");
  // Linked again, as a run's model is after its combination is set.
  link_file_atomic(from, to, read_verified_file(from));
  EXPECT_EQ(read_verified_file(to), "weights v2\n");
  int leftovers = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    leftovers += e.path().filename().string().find(".tmp.") != std::string::npos;
  EXPECT_EQ(leftovers, 0);
  // A source that is not there: the writer's one-line error naming the target, nothing replaced.
  EXPECT_THROW(link_file_atomic(dir + "/run0/absent.pt", to, "x"), Error);
  EXPECT_EQ(read_verified_file(to), "weights v2\n");
  // A failing disk (the fault-injection suite's faults, here in-process): at the link (full
  // disk, denied) and before the rename (I/O error), each the writer's error naming the
  // target, the old file whole and listed, no temporary left.
  write_text_atomic(from, "weights v3\n");
  for (const char* error : {"ENOSPC", "EACCES", "EIO"}) {
    fault::configure(std::string("write:") + error + ":" + to);
    try {
      link_file_atomic(from, to, read_verified_file(from));
      ADD_FAILURE() << error << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(to + ": cannot write"), std::string::npos) << e.what();
    }
    fault::configure("");
    EXPECT_EQ(read_verified_file(to), "weights v2\n") << error;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << error << ": " << e.path();
  }
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
