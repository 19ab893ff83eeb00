// The pieces of data-parallel training that need no second process (train/distributed.h):
// the shards cover every training pair once, torchrun's variables are read and checked, and
// a single process's step is untouched. The two-process runs are in
// tests/cli/test_distributed_cli.cpp.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <torch/types.h>

#include <string>
#include <vector>

#include "symgnn/error.h"
#include "train/distributed.h"

using symgnn::ConfigError;
using symgnn::train::read_distributed_env;
using symgnn::train::shard_range;

/// Sets torchrun's variables for one test and clears them after it. At namespace scope, not
/// in an anonymous namespace: the TEST_F classes derive from it, and a unity build (CMake's)
/// warns of a base whose type is local to an included file (-Wsubobject-linkage).
class RendezvousEnv : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* v :
         {"MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "SYMGNN_DIST_TIMEOUT"})
      ::unsetenv(v);
  }
  static void set(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }
};

TEST(Distributed, ShardsCoverEveryPairOnceWithSizesWithinOne) {
  for (const int64_t n : {1, 2, 7, 100, 100001})
    for (const int64_t w : {1, 2, 3, 8}) {
      if (w > n) continue;
      int64_t next = 0, smallest = n, largest = 0;
      for (int64_t r = 0; r < w; ++r) {
        const auto [b, e] = shard_range(n, r, w);
        EXPECT_EQ(b, next) << n << " over " << w;
        next = e;
        smallest = std::min(smallest, e - b);
        largest = std::max(largest, e - b);
      }
      EXPECT_EQ(next, n);
      EXPECT_LE(largest - smallest, 1);
    }
}

TEST_F(RendezvousEnv, UnsetOrOneWorldIsASingleProcess) {
  EXPECT_EQ(read_distributed_env().world_size, 1);
  set("WORLD_SIZE", "1");
  set("RANK", "garbage");  // ignored without a group
  EXPECT_EQ(read_distributed_env().world_size, 1);
}

TEST_F(RendezvousEnv, TorchrunVariablesAreRead) {
  set("WORLD_SIZE", "4");
  set("RANK", "3");
  set("MASTER_ADDR", "host0");
  set("MASTER_PORT", "29500");
  auto env = read_distributed_env();
  EXPECT_EQ(env.world_size, 4);
  EXPECT_EQ(env.rank, 3);
  EXPECT_EQ(env.local_rank, 3);  // LOCAL_RANK defaults to RANK
  EXPECT_EQ(env.master_addr, "host0");
  EXPECT_EQ(env.port, 29500);
  set("LOCAL_RANK", "1");
  EXPECT_EQ(read_distributed_env().local_rank, 1);
}

TEST_F(RendezvousEnv, MalformedVariablesNameThemselves) {
  set("WORLD_SIZE", "2");
  set("MASTER_ADDR", "127.0.0.1");
  set("MASTER_PORT", "29500");
  const std::vector<std::pair<std::pair<const char*, std::string>, std::string>> cases = {
      {{"RANK", "-1"}, "RANK=-1"},
      {{"RANK", "2"}, "must be less than WORLD_SIZE=2"},
      {{"MASTER_PORT", "0"}, "MASTER_PORT=0"},
      {{"MASTER_PORT", "65536"}, "MASTER_PORT=65536"},
      {{"MASTER_ADDR", ""}, "MASTER_ADDR is empty"},
      {{"LOCAL_RANK", "x"}, "LOCAL_RANK=x"},
      {{"SYMGNN_DIST_TIMEOUT", "0"}, "SYMGNN_DIST_TIMEOUT=0"},
  };
  for (const auto& [var, expected] : cases) {
    set("RANK", "1");
    set("MASTER_PORT", "29500");
    set("MASTER_ADDR", "127.0.0.1");
    ::unsetenv("LOCAL_RANK");
    ::unsetenv("SYMGNN_DIST_TIMEOUT");
    set(var.first, var.second);
    try {
      read_distributed_env();
      ADD_FAILURE() << var.first << "=" << var.second << " was accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST(Distributed, WithoutAGroupTheGradientsAndFiguresStayAsTheyAre) {
  at::Tensor w = torch::ones({3}, torch::requires_grad());
  (w * torch::tensor({1.0f, 2.0f, 3.0f})).sum().backward();
  std::vector<double> figures{0.5, 0.25};
  symgnn::train::average_gradients(nullptr, {w}, 0.5, figures);
  EXPECT_TRUE(torch::equal(w.grad(), torch::tensor({1.0f, 2.0f, 3.0f})));
  EXPECT_EQ(figures, (std::vector<double>{0.5, 0.25}));
}
