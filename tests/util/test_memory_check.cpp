// Memory estimates before dense steps and allocation failures named by their step
// (src/util/memory_check.h).
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>

#include "symgnn/error.h"
#include "util/memory_check.h"

using namespace symgnn;

TEST(MemoryCheck, ADenseStepBeyondTheMachineIsRefusedWithTheSizes) {
  ASSERT_GT(physical_memory_bytes(), 0);
  EXPECT_NO_THROW(require_memory(1024, "small", "one KiB", "n/a"));
  try {
    require_memory(4 * physical_memory_bytes(), "the step", "what it holds", "Do this instead");
    ADD_FAILURE();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("the step needs about ", 0), 0u) << what;
    EXPECT_NE(what.find(" GiB (what it holds); this machine has "), std::string::npos) << what;
    EXPECT_NE(what.find("GiB. Do this instead"), std::string::npos) << what;
  }
}

TEST(MemoryCheck, AllocationFailuresNameTheInnermostStep) {
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no Error");
  };
  EXPECT_EQ(message([] {
              with_memory_context("loading x", [] { throw std::bad_alloc(); });
            }).rfind("out of memory while loading x; ", 0),
            0u);
  // LibTorch's allocator throws c10::Error (a std::exception) with a multi-line message.
  const std::string torch_like = message([] {
    with_memory_context("training", [] {
      throw std::runtime_error(
          "DefaultCPUAllocator: can't allocate memory: you tried to allocate 99 bytes.\nException raised "
          "from");
    });
  });
  EXPECT_NE(
      torch_like.find("out of memory while training (DefaultCPUAllocator: can't allocate memory: you tried "
                      "to allocate 99 bytes.)"),
      std::string::npos)
      << torch_like;
  EXPECT_EQ(torch_like.find('\n'), std::string::npos);
  EXPECT_NE(message([] {
              with_memory_context("outer",
                                  [] { with_memory_context("inner", [] { throw std::bad_alloc(); }); });
            }).find("while inner"),
            std::string::npos);
  // Other errors pass through unchanged; so does a value.
  EXPECT_EQ(message([] { with_memory_context("s", [] { throw DataError("f.csv", 3, "bad"); }); }),
            "f.csv:3: bad");
  EXPECT_THROW(with_memory_context("s", [] { throw std::logic_error("bug"); }), std::logic_error);
  EXPECT_EQ(with_memory_context("s", [] { return 7; }), 7);
}
