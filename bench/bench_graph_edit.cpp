// A graph edit of a served model, step by step (symgnn/graph_edit.h, docs/graph_edits.md):
// the edited model's recompute (apply_graph_edits), and the whole POST /v1/graph/edges as
// the server does it (ModelStore::edit_graph: recompute, journal record synced to disk, the
// scores cached again, the swap), on a copy of the directory. Prints figures; min, median
// and max over the repeats.
//
//   build/bench/bench_graph_edit --model runs/douban-g [--repeats 10] [--side user]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "infer/model_parts.h"
#include "serve/model_store.h"
#include "symgnn/graph_edit.h"
#include "symgnn/trained_model.h"

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

void print(const char* what, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  std::printf("%-34s min %8.1f ms   median %8.1f ms   max %8.1f ms   (%zu edits)\n", what, ms.front(),
              ms[ms.size() / 2], ms.back(), ms.size());
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, side = "user";
  int repeats = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--model") dir = argv[i + 1];
    if (a == "--repeats") repeats = std::stoi(argv[i + 1]);
    if (a == "--side") side = argv[i + 1];
  }
  if (dir.empty() || repeats < 1) {
    std::fprintf(stderr, "bench_graph_edit: --model DIR is required (--repeats N >= 1)\n");
    return 2;
  }
  const symgnn::TrainedModel model = symgnn::TrainedModel::load(dir);
  const symgnn::NodeSet& nodes = side == "user" ? model.dataset().users : model.dataset().items;
  std::printf("bench_graph_edit: %s (%s, %zu members), %lld users x %lld items, %s graph of %zu entries\n",
              dir.c_str(), model.name().c_str(), model.parts().members.size(),
              static_cast<long long>(model.users()), static_cast<long long>(model.items()), side.c_str(),
              nodes.graph.src.size());
  // Edges between nodes far apart in index order: new ones in any graph of these sizes.
  auto edit = [&](int r) {
    const int64_t a = (r * 7919) % nodes.count, b = (a + nodes.count / 2 + r) % nodes.count;
    return symgnn::GraphEdit{side, "add", nodes.id_of(a), nodes.id_of(b), 1.0};
  };
  std::vector<double> recompute;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    const symgnn::TrainedModel edited = symgnn::apply_graph_edits(model, {edit(r)});
    recompute.push_back(since(t0));
  }
  print("apply_graph_edits", recompute);

  const fs::path copy = fs::temp_directory_path() / "symgnn_bench_graph_edit";
  fs::remove_all(copy);
  fs::copy(dir, copy, fs::copy_options::recursive);
  fs::remove(copy / "graph_journal.jsonl");
  symgnn::serve::ModelStore store({{"main", copy.string()}}, "cpu");
  std::printf("served: scores %s\n",
              store.get("")->cached ? "cached at load; after an edit, per request" : "per request");
  std::vector<double> served;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    store.edit_graph("", {edit(repeats + r)});
    served.push_back(since(t0));
  }
  print("ModelStore::edit_graph (POST)", served);
  fs::remove_all(copy);
  return 0;
}
