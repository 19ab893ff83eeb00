// A graph edit of a served model, step by step (symgnn/graph_edit.h, docs/graph_edits.md):
// the edited model's recompute (apply_graph_edits), and the whole POST /v1/graph/edges as
// the server does it (ModelStore::edit_graph: recompute, journal record synced to disk, the
// scores cached again, the swap), on a copy of the directory. Prints figures; min, median
// and max over the repeats.
//
//   build/bench/bench_graph_edit --model runs/douban-g [--repeats 10] [--side user]
//   build/bench/bench_graph_edit --model runs/ml100k --side item --create 5 [--repeats 10]
//
// --create K: instead, each repeat creates a new node linked to K nodes of the side (a node
// and K - 1 of its graph neighbours, or with --links-by similar of its K - 1 most similar
// nodes: related items, as a new item's links would be) and
// prints where it ranks in similar() of each of them (TrainedModel::similar, what GET
// /v1/similar answers), and the time of the edit. --with-features yes: the new node is given
// the side features of its first link (a film with the genres of a related one).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

/// --create: a new node linked to `links` related nodes per repeat; its rank in their similar().
int bench_create(const symgnn::TrainedModel& model, const std::string& side, int links, int repeats,
                 bool by_similar, bool with_features) {
  const symgnn::NodeSet& nodes = side == "user" ? model.dataset().users : model.dataset().items;
  const symgnn::NodeSide ns = side == "user" ? symgnn::NodeSide::users : symgnn::NodeSide::items;
  std::vector<std::vector<int64_t>> neighbours(static_cast<size_t>(nodes.count));
  for (size_t e = 0; e < nodes.graph.src.size(); ++e)
    neighbours[static_cast<size_t>(nodes.graph.src[e])].push_back(nodes.graph.dst[e]);
  std::vector<double> ms;
  std::vector<int> ranks;  // per link: the new node's rank in the link's similar() (1 first), 0 beyond 50
  int found10 = 0, total = 0, r = 0;
  for (int64_t start = 0; r < repeats && start < nodes.count; ++start) {
    const int64_t a = (start * 7919 + 17) % nodes.count;
    std::vector<int64_t> group{a};
    std::vector<int64_t> candidates = neighbours[static_cast<size_t>(a)];
    if (by_similar) {
      candidates.clear();
      for (const symgnn::SimilarNode& s : model.similar(ns, a, links - 1)) candidates.push_back(s.index);
    }
    for (const int64_t b : candidates)
      if (static_cast<int>(group.size()) < links && std::find(group.begin(), group.end(), b) == group.end())
        group.push_back(b);
    if (static_cast<int>(group.size()) < links) continue;
    std::vector<symgnn::Delta::Edge> edits;
    for (const int64_t b : group) {
      symgnn::Delta::Edge e =
          symgnn::graph_edit(side, "add", "bench-new-" + std::to_string(r), nodes.id_of(b), 1.0);
      e.create = true;
      edits.push_back(e);
    }
    if (with_features && !nodes.features.empty())  // those of the first link (a film's genres)
      for (int64_t c = 0; c < nodes.features.cols; ++c)
        edits.front().features.push_back(
            nodes.features.values[static_cast<size_t>(group[0] * nodes.features.cols + c)]);
    const auto t0 = Clock::now();
    const symgnn::TrainedModel edited = symgnn::apply_graph_edits(model, edits);
    ms.push_back(since(t0));
    const int64_t fresh = side == "user" ? edited.users() - 1 : edited.items() - 1;
    std::printf("new node %d linked to", r);
    for (const int64_t b : group) {
      const auto near = edited.similar(ns, b, 50);
      int rank = 0;
      for (size_t k = 0; k < near.size(); ++k)
        if (near[k].index == fresh) rank = static_cast<int>(k) + 1;
      ranks.push_back(rank);
      found10 += rank >= 1 && rank <= 10;
      ++total;
      std::printf(" %s (rank %d)", nodes.id_of(b).c_str(), rank);
    }
    std::printf("\n");
    ++r;
  }
  if (ms.empty()) {
    std::fprintf(stderr, "bench_graph_edit: no node with %d - 1 graph neighbours\n", links);
    return 2;
  }
  print("apply_graph_edits (create)", ms);
  std::printf("the new node among the 10 most similar of its links: %d of %d (rank 0: beyond 50)\n", found10,
              total);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, side = "user";
  int repeats = 10, create = 0;
  std::string links_by = "graph";
  bool with_features = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--model") dir = argv[i + 1];
    if (a == "--repeats") repeats = std::stoi(argv[i + 1]);
    if (a == "--side") side = argv[i + 1];
    if (a == "--create") create = std::stoi(argv[i + 1]);
    if (a == "--links-by") links_by = argv[i + 1];
    if (a == "--with-features") with_features = std::string(argv[i + 1]) == "yes";
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
  if (create > 0) return bench_create(model, side, create, repeats, links_by == "similar", with_features);
  // Edges between nodes far apart in index order: new ones in any graph of these sizes.
  auto edit = [&](int r) {
    const int64_t a = (r * 7919) % nodes.count, b = (a + nodes.count / 2 + r) % nodes.count;
    return symgnn::graph_edit(side, "add", nodes.id_of(a), nodes.id_of(b), 1.0);
  };
  // The first edit of a model loaded without the trace of its forward makes it (a forward of
  // every member: RatingModel::take_graph_edit reads it); a server makes it at load where it
  // caches scores. Timed apart.
  {
    const auto t0 = Clock::now();
    const symgnn::TrainedModel first = symgnn::apply_graph_edits(model, {edit(2 * repeats)});
    std::printf("%-34s %8.1f ms\n", "apply_graph_edits, first (trace)", since(t0));
  }
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
    if (std::getenv("BENCH_EACH")) std::printf("  POST %d: %.1f ms\n", r, served.back());
  }
  print("ModelStore::edit_graph (POST)", served);
  fs::remove_all(copy);
  return 0;
}
