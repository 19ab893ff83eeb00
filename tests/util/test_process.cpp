// Child processes with their own log files (reproduce and tune run `symgnn train` so).
#include <gtest/gtest.h>

#include <set>
#include <string>

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
