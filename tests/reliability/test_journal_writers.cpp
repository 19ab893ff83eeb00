// The graph journal with two writers, driven as users drive it (docs/graph_edits.md, "The
// journal"; issue 65 items 1 and 2): a running `symgnn serve` and `symgnn graph edit` on one
// model directory. An edit is checked against the journal as it is under its lock, so no
// acknowledged edit can leave the directory unloadable; a record cut short by a crash is
// refused before anything is appended after it, with the command that drops it.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "common/serve_process.h"
#include "common/test_support.h"

namespace fs = std::filesystem;
namespace st = symgnn::testing;
using nlohmann::json;

namespace {

/// A low-rank model on 30 users who follow one another in pairs (u1-u2, u3-u4, ...), its
/// folder under `dir`/model, served with an admin token.
struct ServedFolder {
  std::string dir, model, token = "0123456789abcdef";
  pid_t pid = -1;
  int port = -1;

  explicit ServedFolder(const std::string& tag) : dir(st::scratch_dir(tag)), model(dir + "/model") {
    std::string ratings = "user,item,rating\n", follows;
    for (int u = 1; u <= 30; ++u) {
      for (int k = 0; k < 8; ++k) {
        const int i = 1 + (u * 3 + k * 7) % 20;
        ratings +=
            "u" + std::to_string(u) + ",i" + std::to_string(i) + "," + std::to_string(1 + (u + i) % 5) + "\n";
      }
      if (u % 2 == 1) follows += "u" + std::to_string(u) + ",u" + std::to_string(u + 1) + "\n";
    }
    st::write_file(dir, "ratings.csv", ratings);
    st::write_file(dir, "follows.csv", follows);
    st::write_file(dir, "token.txt", token + "\n");
    std::string out;
    const int rc = st::run_symgnn("train --data " + dir + "/ratings.csv --set data.user_graph_file=" + dir +
                                      "/follows.csv --preset paper --model lowrank --set lowrank.hidden=8 "
                                      "--epochs 3 --no-compare --threads 1 --quiet --out " +
                                      model,
                                  &out);
    EXPECT_EQ(rc, 0) << out;
    pid = st::start_serve(
        {"--model", "m=" + model, "--port", "0", "--threads", "2", "--admin-token-file", dir + "/token.txt"},
        dir + "/serve.log");
    port = st::serve_port(dir + "/serve.log");
  }
  ~ServedFolder() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      st::exit_code(pid);
    }
  }
  /// POST /v1/graph/edges with one edit; the status and the body.
  std::pair<int, json> post(const std::string& op, const std::string& a, const std::string& b) const {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(60);
    c.set_bearer_token_auth(token);
    const json body = {{"edits", {{{"side", "user"}, {"op", op}, {"a", a}, {"b", b}}}}};
    const auto r = c.Post("/v1/graph/edges", body.dump(), "application/json");
    if (!r) return {-1, json()};
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  /// `symgnn graph edit` on the served folder; its exit code, its output in *out.
  int cli_edit(const std::string& what, std::string* out) const {
    return st::run_symgnn("graph edit --model " + model + " " + what, out);
  }
  std::string journal() const { return st::read_file(model + "/graph_journal.jsonl"); }
  /// Whether every reader of the folder still loads it: a CLI command and the server's reload.
  void expect_loads() const {
    std::string out;
    EXPECT_EQ(st::run_symgnn("recommend --model " + model + " --user u1 --k 3", &out), 0) << out;
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(60);
    c.set_bearer_token_auth(token);
    const auto r = c.Post("/v1/admin/reload", "", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
  }
};

size_t journal_lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST(JournalWriters, AnEditAnotherWriterMadeImpossibleIsRefusedAndTheFolderStillLoads) {
  ServedFolder f("journal_two_writers");
  ASSERT_GT(f.port, 0) << st::read_file(f.dir + "/serve.log");
  // The server adds an edge; `graph edit` removes it beside the server; the server is then
  // asked to remove it again. Before, three acknowledgements, and no reader loaded the folder.
  EXPECT_EQ(f.post("add", "u1", "u9").first, 200);
  std::string out;
  ASSERT_EQ(f.cli_edit("--remove-user-edge u1,u9", &out), 0) << out;
  const auto [status, body] = f.post("remove", "u1", "u9");
  EXPECT_EQ(status, 400) << body.dump();
  const std::string error = body.value("error", "");
  EXPECT_NE(error.find("u9"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(journal_lines(f.journal()), 2u);
  f.expect_loads();
  // The server has applied the other writer's record: its next edit is numbered after it,
  // and the removal it now holds is the folder's.
  const auto [added, after] = f.post("add", "u1", "u11");
  EXPECT_EQ(added, 200) << after.dump();
  EXPECT_EQ(after.value("journal_records", 0), 3) << after.dump();

  // The other way round: the server removes an edge of the follow file; `graph edit`
  // removing it again is one line and exit 2, nothing written.
  EXPECT_EQ(f.post("remove", "u3", "u4").first, 200);
  EXPECT_EQ(f.cli_edit("--remove-user-edge u3,u4", &out), 2) << out;
  EXPECT_NE(out.find("u3"), std::string::npos) << out;
  EXPECT_EQ(journal_lines(f.journal()), 4u);
  f.expect_loads();
}

TEST(JournalWriters, AJournalCutByACrashTakesNoEditUntilTheCutRecordIsDropped) {
  ServedFolder f("journal_cut_tail");
  ASSERT_GT(f.port, 0) << st::read_file(f.dir + "/serve.log");
  EXPECT_EQ(f.post("add", "u1", "u9").first, 200);
  const std::string whole = f.journal();
  // A `graph edit` killed in the middle of its write() leaves a line without its newline.
  std::ofstream(f.model + "/graph_journal.jsonl", std::ios::app | std::ios::binary)
      << "{\"edits\":[{\"a\":\"u5\",\"b\":\"u";
  const std::string cut = f.journal();
  // The server and the CLI refuse to append after it, each in one line naming the journal's
  // line and the command that drops the cut record; the journal is left as it was.
  const auto [status, body] = f.post("add", "u1", "u11");
  EXPECT_EQ(status, 409) << body.dump();
  const std::string error = body.value("error", "");
  EXPECT_NE(error.find("graph_journal.jsonl:2: damaged graph journal record (the last line is cut short"),
            std::string::npos)
      << error;
  const std::regex command("truncate -s ([0-9]+) (\\S+graph_journal\\.jsonl)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(error, m, command)) << error;
  EXPECT_EQ(std::stoul(m[1]), whole.size());
  std::string out;
  EXPECT_EQ(f.cli_edit("--add-user-edge u1,u11", &out), 2) << out;
  EXPECT_NE(out.find("cut short"), std::string::npos) << out;
  EXPECT_EQ(f.journal(), cut);
  // The command given: every acknowledged record stays, and both writers take edits again.
  ASSERT_EQ(st::run_command("truncate -s " + m[1].str() + " " + m[2].str()), 0);
  EXPECT_EQ(f.journal(), whole);
  EXPECT_EQ(f.post("add", "u1", "u11").first, 200);
  EXPECT_EQ(f.cli_edit("--add-user-edge u1,u13", &out), 0) << out;
  EXPECT_EQ(journal_lines(f.journal()), 3u);
  f.expect_loads();
}

// Issue 65 item 3: an id that a graph edit creates follows the rule every other door applies
// (src/data/id_rule.h), through the server and the CLI alike, so that what the folder then
// writes (an export's users.txt, recommend --all's CSV) holds one line per user.
TEST(JournalWriters, IdsThatAGraphEditCreatesFollowTheIdRule) {
  const ServedFolder f("journal_writers_ids");
  ASSERT_GT(f.port, 0) << st::read_file(f.dir + "/serve.log");
  const auto create = [&](const std::string& id) {
    httplib::Client c("127.0.0.1", f.port);
    c.set_read_timeout(60);
    c.set_bearer_token_auth(f.token);
    const json body = {
        {"edits", {{{"side", "user"}, {"op", "add"}, {"a", id}, {"b", "u1"}, {"create", true}}}}};
    const auto r = c.Post("/v1/graph/edges", body.dump(), "application/json");
    return r ? std::make_pair(r->status, r->body) : std::make_pair(-1, std::string());
  };
  for (const std::string& bad : {std::string("line\nbreak"), std::string("a,b"), std::string("tab\there"),
                                 std::string("nul\0x", 5), std::string(2000, 'x'), std::string(" padded")}) {
    const auto [status, body] = create(bad);
    EXPECT_EQ(status, 400) << body.substr(0, 200);
  }
  std::string out;
  EXPECT_EQ(f.cli_edit("--create --add-user-edge \"$(printf 'new\\tone')\",u1", &out), 2) << out;
  EXPECT_NE(out.find("tab"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(f.journal(), "") << "nothing refused was journalled";
  // A good id joins; what the folder writes then has one line per user.
  EXPECT_EQ(create("newcomer").first, 200);
  ASSERT_EQ(st::run_symgnn("export --model " + f.model + " --out " + f.dir + "/export", &out), 0) << out;
  const std::string users = st::read_file(f.dir + "/export/users.txt");
  EXPECT_EQ(std::count(users.begin(), users.end(), '\n'), 31) << users;
  ASSERT_EQ(st::run_symgnn("recommend --model " + f.model + " --all --k 2 --out " + f.dir + "/all.csv", &out),
            0)
      << out;
  std::ifstream csv(f.dir + "/all.csv");
  int rows = 0;
  for (std::string line; std::getline(csv, line);) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 3) << line;  // user,item,rating,rank
    ++rows;
  }
  EXPECT_GT(rows, 31);
}
