// Checksums (sealed and listed files), the atomic writer's failure paths with injected
// faults, and the output-folder lock: src/util/checksum.h, atomic_file.h, output_lock.h.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "util/atomic_file.h"
#include "util/checksum.h"
#include "util/fault_injection.h"
#include "util/output_lock.h"

using namespace symgnn;
namespace fs = std::filesystem;

namespace {

/// Faults for the scope of one test.
struct Faults {
  explicit Faults(const std::string& spec) { fault::configure(spec); }
  ~Faults() { fault::configure(""); }
};

int files_in(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file();
  return n;
}

}  // namespace

TEST(Checksum, Sha256MatchesTheStandardVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Checksum, SealedBytesComeBackAndAnyDamageIsNamed) {
  std::string payload = "PK\x03\x04 pretend archive";
  for (int k = 0; k < 300; ++k) payload += static_cast<char>(k * 37);
  const std::string sealed = seal(payload);
  EXPECT_EQ(unseal(sealed, "m.pt"), payload);
  // Every single-bit flip, in the header or the payload, is caught.
  for (size_t at = 0; at < sealed.size(); ++at) {
    std::string bad = sealed;
    bad[at] ^= 0x04;
    EXPECT_THROW(unseal(bad, "m.pt"), CheckpointError) << "byte " << at;
  }
  try {
    unseal(sealed.substr(0, sealed.size() - 10), "m.pt");
    ADD_FAILURE();
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("m.pt: holds"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  // A model written before checksums (a bare ZIP archive) still loads; anything else does not.
  EXPECT_EQ(unseal(payload, "old.pt"), payload);
  EXPECT_THROW(unseal("hello", "x.pt"), CheckpointError);
  EXPECT_THROW(unseal("", "x.pt"), CheckpointError);
}

TEST(Checksum, ListedFilesVerifyAndEditsAreCaught) {
  const std::string dir = symgnn::testing::scratch_dir("checksum_listed");
  write_text_atomic(dir + "/a.json", "{\"x\": 1}\n");
  write_text_atomic(dir + "/b.txt", "bee\n");
  EXPECT_EQ(read_verified_file(dir + "/a.json"), "{\"x\": 1}\n");
  // sha256sum's format: one line per file.
  const auto entries = manifest::read(dir);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "a.json");
  EXPECT_EQ(entries[0].hash, sha256_hex("{\"x\": 1}\n"));
  // Rewritten: only the new hash stays listed.
  write_text_atomic(dir + "/a.json", "{\"x\": 2}\n");
  EXPECT_EQ(manifest::read(dir).size(), 2u);
  EXPECT_EQ(read_verified_file(dir + "/a.json"), "{\"x\": 2}\n");
  // Edited behind symgnn's back: refused, naming the file.
  symgnn::testing::write_file(dir, "b.txt", "bee!\n");
  try {
    read_verified_file(dir + "/b.txt");
    ADD_FAILURE();
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/b.txt: checksum differs"), std::string::npos) << e.what();
  }
  // A file the list does not name is read as it is (hand-made, or from an older symgnn).
  symgnn::testing::write_file(dir, "c.csv", "u,i,r\n");
  EXPECT_EQ(read_verified_file(dir + "/c.csv"), "u,i,r\n");
  // Files for people only are not listed.
  write_text_atomic(dir + "/export.csv", "x\n", Integrity::none);
  EXPECT_EQ(manifest::read(dir).size(), 2u);
}

TEST(Checksum, BothHashesVerifyWhileANewFileIsRenamedIn) {
  // The state a crash between the manifest update and the rename leaves behind.
  const std::string dir = symgnn::testing::scratch_dir("checksum_pending");
  write_text_atomic(dir + "/m.json", "old\n");
  manifest::add_pending(dir, "m.json", sha256_hex("new\n"));
  EXPECT_EQ(read_verified_file(dir + "/m.json"), "old\n");
  symgnn::testing::write_file(dir, "m.json", "new\n");
  EXPECT_EQ(read_verified_file(dir + "/m.json"), "new\n");
  symgnn::testing::write_file(dir, "m.json", "neither\n");
  EXPECT_THROW(read_verified_file(dir + "/m.json"), DataError);
  manifest::forget(dir, {"m.json"});
  EXPECT_FALSE(fs::exists(dir + "/" + kChecksumManifest));  // an empty list is no file
}

TEST(AtomicFile, InjectedFailuresLeaveThePreviousFileAndNoTemporary) {
  for (const Integrity integrity : {Integrity::listed, Integrity::sealed, Integrity::none}) {
    for (const char* error : {"ENOSPC", "EDQUOT", "EIO", "EACCES", "EROFS"}) {
      const std::string dir = symgnn::testing::scratch_dir("atomic_faults");
      const std::string path = dir + "/f.bin";
      write_text_atomic(path, "previous contents\n", integrity);
      const int before = files_in(dir);
      {
        const Faults faults(std::string("write:") + error + ":f.bin");
        try {
          write_text_atomic(path, std::string(100000, 'x'), integrity);
          ADD_FAILURE() << error;
        } catch (const Error& e) {
          const std::string what = e.what();
          EXPECT_EQ(what.rfind(path + ": cannot write: ", 0), 0u) << what;
          EXPECT_NE(what.find("the previous file, if any, is unchanged"), std::string::npos) << what;
          EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
      }
      EXPECT_EQ(files_in(dir), before) << error;  // no temporary left
      const std::string back = integrity == Integrity::sealed   ? read_sealed_file(path)
                               : integrity == Integrity::listed ? read_verified_file(path)
                                                                : symgnn::testing::read_file(path);
      EXPECT_EQ(back, "previous contents\n") << error;
    }
  }
}

TEST(AtomicFile, TheNthWriteFailsAndTheOthersDoNot) {
  const std::string dir = symgnn::testing::scratch_dir("atomic_nth");
  const Faults faults("write:ENOSPC:g.txt:2");
  EXPECT_NO_THROW(write_text_atomic(dir + "/g.txt", "1"));
  EXPECT_THROW(write_text_atomic(dir + "/g.txt", "2"), Error);
  EXPECT_NO_THROW(write_text_atomic(dir + "/g.txt", "3"));
  EXPECT_NO_THROW(write_text_atomic(dir + "/h.txt", "h"));
  EXPECT_EQ(read_verified_file(dir + "/g.txt"), "3");
}

TEST(OutputLock, OneHolderAtATimeAndStaleTemporariesGo) {
  const std::string dir = symgnn::testing::scratch_dir("output_lock");
  {
    const OutputLock first(dir, "--out");
    try {
      const OutputLock second(dir, "--out");
      ADD_FAILURE() << "locked twice";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("is in use by another symgnn run"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(OutputLock(dir, "--out"));  // released with its holder
  symgnn::testing::write_file(dir, "model.pt.tmp.123", "x");
  symgnn::testing::write_file(dir, "run0/checkpoint.pt.tmp.9", "x");
  symgnn::testing::write_file(dir, "notes.tmp.txt", "mine");
  EXPECT_EQ(remove_stale_temporaries(dir), 2);
  EXPECT_TRUE(fs::exists(dir + "/notes.tmp.txt"));
}

TEST(OutputLock, ClearRunRemovesOnlyWhatTrainWrites) {
  const std::string dir = symgnn::testing::scratch_dir("clear_run");
  for (const char* f : {"config.txt", "metrics.json", "predictions/test.csv", "run0/model.pt", "run12/x",
                        "final/run0/model.pt", "notes.md", "runs/keep.txt"})
    symgnn::testing::write_file(dir, f, "x");
  write_text_atomic(dir + "/config.txt", "x");
  write_text_atomic(dir + "/notes.md", "mine");
  EXPECT_TRUE(holds_run(dir));
  clear_run(dir);
  EXPECT_FALSE(holds_run(dir));
  for (const char* gone : {"metrics.json", "predictions", "run0", "run12", "final"})
    EXPECT_FALSE(fs::exists(dir + "/" + gone)) << gone;
  EXPECT_TRUE(fs::exists(dir + "/notes.md"));
  EXPECT_TRUE(fs::exists(dir + "/runs/keep.txt"));
  EXPECT_EQ(read_verified_file(dir + "/notes.md"), "mine");  // its entry is still listed
  ASSERT_EQ(manifest::read(dir).size(), 1u);
}
