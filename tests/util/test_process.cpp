// Child processes with their own log files (reproduce and tune run `symgnn train` so).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "common/test_support.h"
#include "symgnn/error.h"
#include "util/process.h"
#include "util/text.h"

using namespace symgnn;

TEST(Process, PoolReportsEachChildsTagStatusAndLog) {
  const std::string dir = symgnn::testing::scratch_dir("process");
  ChildPool pool;
  pool.start(7, {"/bin/sh", "-c", "echo out; echo err >&2; exit 0"}, dir + "/a.log");
  pool.start(9, {"/bin/sh", "-c", "exit 4"}, dir + "/b.log");
  EXPECT_EQ(pool.running(), 2u);
  std::set<size_t> seen;
  for (int i = 0; i < 2; ++i) {
    const ChildPool::Exit e = pool.wait();
    seen.insert(e.tag);
    EXPECT_EQ(e.ok, e.tag == 7);
    EXPECT_EQ(e.code, e.tag == 7 ? 0 : 4);
    EXPECT_GE(e.seconds, 0.0);
  }
  EXPECT_EQ(seen, (std::set<size_t>{7, 9}));
  EXPECT_EQ(pool.running(), 0u);
  EXPECT_THROW(pool.wait(), Error);
  // The command line first, then stdout and stderr.
  EXPECT_EQ(read_text_file(dir + "/a.log"), "/bin/sh -c echo out; echo err >&2; exit 0 \nout\nerr\n");
  EXPECT_THROW(spawn_logged({"/nonexistent/exe"}, dir + "/c.log"), Error);
}

TEST(Process, TailLinesKeepsTheLastAcceptedOnes) {
  const std::string dir = symgnn::testing::scratch_dir("process_tail");
  const std::string path = symgnn::testing::write_file(dir, "log.txt", "a\nb\nskip c\nd\ne\n");
  EXPECT_EQ(tail_lines(path, 2), (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(tail_lines(path, 3, [](const std::string& l) { return l.rfind("skip", 0) != 0; }),
            (std::vector<std::string>{"b", "d", "e"}));
  EXPECT_TRUE(tail_lines(dir + "/missing.txt", 3).empty());
}

namespace {
/// Whether process `pid` still runs (a zombie waiting for its reaper does not).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}
}  // namespace

TEST(Process, ChildrenDieWithTheirParent) {
  // A `tune` or `reproduce` killed outright must not leave its `train` children writing into
  // folders the next run cleans: the child of a process that dies follows it.
  const std::string dir = symgnn::testing::scratch_dir("process_orphans");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    const pid_t child = spawn_logged({"/bin/sleep", "60"}, dir + "/sleep.log");
    if (::write(fds[1], &child, sizeof child) != sizeof child) ::_exit(1);
    ::_exit(0);
  }
  pid_t child = -1;
  ASSERT_EQ(::read(fds[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::waitpid(parent, nullptr, 0);
  bool gone = false;
  for (int k = 0; k < 200 && !gone; ++k) {
    gone = !running(child);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(gone) << "the child " << child << " outlived its parent";
  if (!gone) ::kill(child, SIGKILL);
  ::close(fds[0]);
  ::close(fds[1]);
}
