#include "symgnn/export.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "infer/model_parts.h"
#include "models/baseline/baseline_model.h"
#include "symgnn/error.h"
#include "symgnn/model.h"
#include "util/atomic_file.h"
#include "util/json_text.h"
#include "util/npy.h"

namespace fs = std::filesystem;

namespace symgnn {
namespace {

std::vector<float> floats_of(const at::Tensor& t) {
  const at::Tensor c = t.detach().to(at::kCPU, at::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

/// `f` times `a` (the scores a * s(u, j)).
models::ScoreFactors scaled(models::ScoreFactors f, double a) {
  if (f.users_are_interactions)
    f.items = f.items * a;
  else if (f.users.defined())
    f.users = f.users * a;
  if (f.user_bias.defined()) f.user_bias = f.user_bias * a;
  if (f.item_bias.defined()) f.item_bias = f.item_bias * a;
  f.offset *= a;
  return f;
}

/// The members' factors averaged as TrainedModel averages their scores: the sum of M
/// products, each scaled by 1/M (weighted_sum puts them side by side).
models::ScoreFactors member_mean(const infer::ModelParts& parts) {
  torch::NoGradGuard no_grad;
  const double m = static_cast<double>(parts.members.size());
  models::ScoreFactors acc;
  for (size_t k = 0; k < parts.members.size(); ++k) {
    const models::ScoreFactors f = parts.members[k]->score_factors();
    if (!f.items.defined()) return {};
    acc = k == 0 ? scaled(f, 1.0 / m) : models::weighted_sum(acc, 1.0, f, 1.0 / m, 0);
    if (!acc.items.defined()) return {};
  }
  if (parts.members.size() > 1)
    acc.meaning += " (the mean over " + std::to_string(parts.members.size()) +
                   " averaged weight sets, their factors side by side)";
  return acc;
}

}  // namespace

ModelFactors score_factors(const TrainedModel& model) {
  const infer::ModelParts& parts = model.parts();
  // A model grown in memory by new ratings scores its new and refreshed users from rows its
  // saved factors do not hold: export what a folder holds (TrainedModel::load without them).
  if (model.new_ratings().ratings > 0) return {};
  if (parts.ranker) return score_factors(parts.ranker->model());
  const models::ScoreFactors f = member_mean(parts);
  ModelFactors out;
  if (!f.items.defined()) return out;
  out.factored = true;
  out.users = model.users();
  out.items = model.items();
  out.users_are_interactions = f.users_are_interactions;
  out.dim = f.items.size(1);
  out.item_factors = floats_of(f.items);
  if (!f.users_are_interactions)
    out.user_factors = f.users.defined() ? floats_of(f.users) : std::vector<float>{};
  if (f.user_bias.defined()) out.user_bias = floats_of(f.user_bias);
  if (f.item_bias.defined()) out.item_bias = floats_of(f.item_bias);
  out.offset = f.offset;
  out.meaning = f.meaning;
  return out;
}

namespace {

/// Every file an export may write: what an older export into the same folder may have left.
const char* const kExportFiles[] = {"users.txt",
                                    "items.txt",
                                    "seen_indptr.npy",
                                    "seen_indices.npy",
                                    "item_weights.npy",
                                    "user_factors.npy",
                                    "item_factors.npy",
                                    "user_bias.npy",
                                    "item_bias.npy",
                                    "user_representations.npy",
                                    "item_representations.npy",
                                    "scoring.txt",
                                    "export.json"};

}  // namespace

ExportSummary export_model(const TrainedModel& model, const std::string& out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error(out_dir + ": cannot create the folder (" + ec.message() + ")");
  // Into a folder that holds an older export, that export's files go: one beside the new
  // export.json (another model's factors, say) would read as part of this one.
  const bool older = fs::exists(out_dir + "/export.json", ec);
  ExportSummary s;
  const auto write = [&](const std::string& name, const std::string& bytes) {
    write_text_atomic(out_dir + "/" + name, bytes, Integrity::none);
    s.files.push_back(name);
  };
  const Dataset& ds = model.dataset();
  const int64_t n1 = model.users(), n2 = model.items();
  std::string ids;
  for (int64_t u = 0; u < n1; ++u) ids += ds.users.id_of(u) + "\n";
  write("users.txt", ids);
  ids.clear();
  for (int64_t i = 0; i < n2; ++i) ids += ds.items.id_of(i) + "\n";
  write("items.txt", ids);

  std::vector<int64_t> indptr{0}, indices;
  for (const auto& seen : model.seen_items()) {
    indices.insert(indices.end(), seen.begin(), seen.end());
    indptr.push_back(static_cast<int64_t>(indices.size()));
  }
  write("seen_indptr.npy", npy_bytes(indptr, {n1 + 1}));
  write("seen_indices.npy", npy_bytes(indices, {static_cast<int64_t>(indices.size())}));

  nlohmann::json record = {{"format", "symgnn-export-1"},
                           {"model", model.name()},
                           {"ranker", model.ranker()},
                           {"users", n1},
                           {"items", n2}};
  std::string text = "symgnn export of " + model.name() +
                     (model.ranker().empty() ? "" : " (lists ranked by its " + model.ranker() + " ranker)") +
                     "\n\nusers.txt, items.txt: the original ids of the rows, in order.\n"
                     "seen_indptr.npy, seen_indices.npy: each user's rated items (CSR: user u rated\n"
                     "  seen_indices[seen_indptr[u]:seen_indptr[u+1]]), which lists never show.\n\n";
  const ModelFactors f = score_factors(model);
  s.factored = f.factored;
  s.meaning = f.meaning;
  record["factored"] = f.factored;
  if (f.factored) {
    if (f.users_are_interactions) {
      // item_factors row j is column j of W: written as W itself (n2 x n2), the kind's matrix.
      std::vector<float> w(f.item_factors.size());
      for (int64_t i = 0; i < n2; ++i)
        for (int64_t j = 0; j < n2; ++j)
          w[static_cast<size_t>(i * n2 + j)] = f.item_factors[static_cast<size_t>(j * n2 + i)];
      write("item_weights.npy", npy_bytes(w, {n2, n2}));
      text +=
          "Scores: score[u] = x_u @ W + user_bias[u] + item_bias + offset, where x_u is user u's binary row "
          "of\n"
          "  rated items (from seen_*.npy) and W = item_weights.npy (n_items x n_items).\n";
      record["scores"] = "x_u @ item_weights + user_bias[u] + item_bias + offset";
    } else {
      std::vector<float> users = f.user_factors;
      if (users.empty()) users.assign(static_cast<size_t>(n1 * f.dim), 0.0f);
      write("user_factors.npy", npy_bytes(users, {n1, f.dim}));
      write("item_factors.npy", npy_bytes(f.item_factors, {n2, f.dim}));
      text +=
          "Scores: score[u, j] = user_factors[u] . item_factors[j] + user_bias[u] + item_bias[j]\n"
          "  + offset (dimension " +
          std::to_string(f.dim) + ").\n";
      record["scores"] = "user_factors[u] . item_factors[j] + user_bias[u] + item_bias[j] + offset";
    }
    if (!f.user_bias.empty()) write("user_bias.npy", npy_bytes(f.user_bias, {n1}));
    if (!f.item_bias.empty()) write("item_bias.npy", npy_bytes(f.item_bias, {n2}));
    text += "  A bias file that is absent is zero. offset = " + std::to_string(f.offset) + ".\n" +
            "  This equals `symgnn recommend`'s score of every item the user has not rated (rated\n"
            "  items are never listed; some kinds score them apart).\n  What the factors are: " +
            f.meaning + "\n";
    record["offset"] = f.offset;
    record["dim"] = f.dim;
    record["users_are_interactions"] = f.users_are_interactions;
    record["meaning"] = f.meaning;
  } else {
    text +=
        "Scores: this kind's scores are no product of factors (its decoder is not linear in\n"
        "  them): score with symgnn (recommend, serve, Python). The representations below\n"
        "  serve a vector index for candidates and similar items.\n";
  }
  // The rating model's own representations (what GET /v1/similar compares), members side by side.
  for (int side = 0; side < 2; ++side) {
    const at::Tensor all = infer::member_representations(model.parts(), side);
    if (!all.defined()) continue;
    const std::string name = side == 0 ? "user_representations.npy" : "item_representations.npy";
    write(name, npy_bytes(floats_of(all), {all.size(0), all.size(1)}));
    record[side == 0 ? "user_representations" : "item_representations"] = all.size(1);
  }
  if (record.contains("user_representations") || record.contains("item_representations"))
    text +=
        "\nuser_representations.npy, item_representations.npy: the rating model's own node\n"
        "  representations (compared by cosine for similar users and items).\n";
  record["files"] = s.files;
  write("scoring.txt", text);
  write("export.json", json_text(record, 2) + "\n");
  if (older)
    for (const char* name : kExportFiles)
      if (std::find(s.files.begin(), s.files.end(), name) == s.files.end())
        fs::remove(out_dir + "/" + name, ec);
  return s;
}

}  // namespace symgnn
