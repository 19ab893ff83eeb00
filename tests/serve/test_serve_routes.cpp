// serve's table of routes (src/serve/routes.h) against what is written about it and what
// Api::handle does with it: docs/serve.md and src/serve/api.h list exactly its routes and
// methods, and each route answers its methods, refuses the others with a 405 naming the
// right one, and checks the admin token where the table says so.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "serve/api.h"
#include "serve/model_store.h"
#include "serve/routes.h"
#include "serve/serve_test_model.h"

namespace st = symgnn::testing;
using symgnn::serve::Access;
using symgnn::serve::Route;
using symgnn::serve::RouteInfo;

namespace {

/// "GET /path" for each method each route of the table takes.
std::set<std::string> table_routes() {
  std::set<std::string> out;
  for (const RouteInfo& r : symgnn::serve::kRouteTable) {
    if (r.get) out.insert(std::string("GET ") + r.path);
    if (r.post) out.insert(std::string("POST ") + r.path);
  }
  return out;
}

/// "GET /path" for each `GET /path...` the lines of `text` matching `line` name (the path
/// without its query).
std::set<std::string> listed_routes(const std::string& text, const std::regex& line) {
  std::set<std::string> out;
  std::istringstream lines(text);
  const std::regex route(R"((GET|POST) +(/[^`?\[ ]*))");
  for (std::string l; std::getline(lines, l);) {
    std::smatch cell;
    if (!std::regex_search(l, cell, line)) continue;
    const std::string s = cell[1];
    for (std::sregex_iterator it(s.begin(), s.end(), route), end; it != end; ++it)
      out.insert((*it)[1].str() + " " + (*it)[2].str());
  }
  return out;
}

std::string source_file(const std::string& path) {
  std::ifstream in(std::string(SYMGNN_SOURCE_DIR) + "/" + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(ServeRoutes, TheDocsAndTheApiHeaderListTheTablesRoutes) {
  // docs/serve.md: the first cell of each row of the table under "## Routes".
  const std::string docs = source_file("docs/serve.md");
  const size_t from = docs.find("## Routes");
  ASSERT_NE(from, std::string::npos);
  const std::string section = docs.substr(from, docs.find("\n## ", from + 1) - from);
  EXPECT_EQ(listed_routes(section, std::regex(R"(^\| (.*?) \| )")), table_routes());
  // src/serve/api.h: its opening comment's lines "//   GET  /path ...".
  EXPECT_EQ(listed_routes(source_file("src/serve/api.h"), std::regex(R"(^//   ((GET|POST) +/\S*))")),
            table_routes());
}

TEST(ServeRoutes, EachRouteTakesTheMethodsAndAccessOfItsRow) {
  static const std::string dir = st::serve_test_model("popularity");
  symgnn::serve::ModelStore store({{"main", dir}}, "cpu");
  symgnn::serve::ServeMetrics metrics;
  const symgnn::serve::Api open(store, metrics, {}, "");  // admin routes off
  for (const RouteInfo& r : symgnn::serve::kRouteTable) {
    EXPECT_EQ(symgnn::serve::Api::route_of(r.path), r.route) << r.path;
    EXPECT_STREQ(symgnn::serve::route_label(r.route), r.path);
    for (const char* method : {"GET", "POST", "PUT"}) {
      symgnn::serve::Request q;
      q.method = method;
      q.path = r.path;
      const symgnn::serve::Response a = open.handle(q);
      const bool takes = (q.method == "GET" && r.get) || (q.method == "POST" && r.post);
      if (!takes) {
        EXPECT_EQ(a.status, 405) << method << " " << r.path << ": " << a.body;
        EXPECT_NE(a.body.find(std::string(": use ") + (r.post ? "POST" : "GET")), std::string::npos)
            << a.body;
      } else if (r.access == Access::admin) {
        EXPECT_EQ(a.status, 403) << method << " " << r.path << ": " << a.body;
      } else {
        EXPECT_NE(a.status, 405) << method << " " << r.path << ": " << a.body;
        EXPECT_NE(a.status, 403) << method << " " << r.path << ": " << a.body;
      }
    }
  }
  EXPECT_EQ(symgnn::serve::Api::route_of("/nowhere"), Route::other);
  EXPECT_STREQ(symgnn::serve::route_label(Route::other), "other");
}
