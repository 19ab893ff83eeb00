// The one id rule (data/id_rule.h): what every door an id enters by refuses, and what it
// keeps (any other byte: accents, inner spaces, symbols).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/id_rule.h"

using symgnn::data::id_problem;
using symgnn::data::id_refusal;

TEST(IdRule, RefusesWhatTheFilesCannotHoldAndKeepsTheRest) {
  for (const std::string& ok :
       std::vector<std::string>{"u1", "Ann Lee", "müller", "a;b|c", "x'y", "1e5", std::string(1024, 'z')})
    EXPECT_EQ(id_problem(ok), "") << ok;
  EXPECT_EQ(id_problem(""), "is empty");
  EXPECT_EQ(id_problem(std::string(1025, 'z')), "is 1025 bytes long (at most 1024)");
  EXPECT_EQ(id_problem(" a"), "has surrounding spaces");
  EXPECT_EQ(id_problem("a "), "has surrounding spaces");
  EXPECT_EQ(id_problem("a,b"), "holds a comma");
  EXPECT_EQ(id_problem("a\"b").rfind("holds a double quote", 0), 0u);
  EXPECT_EQ(id_problem("a\tb"), "holds a tab");
  EXPECT_EQ(id_problem("a\rb"), "holds a line break");
  EXPECT_EQ(id_problem("a\nb"), "holds a line break");
  EXPECT_EQ(id_problem(std::string("a\0b", 3)), "holds a control character (byte 0x00)");
  EXPECT_EQ(id_problem("a\x7f"), "holds a control character (byte 0x7f)");
  // One line, the id shown escaped and cut.
  const std::string line = id_refusal("user", std::string("a\nb", 3), id_problem("a\nb"));
  EXPECT_EQ(line,
            "user id 'a\\x0Ab' holds a line break, which the files symgnn reads and writes cannot hold; "
            "rename the id");
  EXPECT_EQ(id_refusal("item", std::string(5000, 'q'), "x").find('\n'), std::string::npos);
  EXPECT_LT(id_refusal("item", std::string(5000, 'q'), "x").size(), 200u);
}
