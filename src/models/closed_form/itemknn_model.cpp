#include "models/closed_form/itemknn_model.h"

#include <ATen/Parallel.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "models/closed_form/damped_biases.h"
#include "models/closed_form/interaction_rows.h"
#include "models/closed_form_predictions.h"
#include "models/ranking/ranking_probe.h"
#include "util/text.h"

namespace symgnn::models {

ItemKnnModel::ItemKnnModel(const ItemKnnConfig& cfg, const ModelContext& ctx)
    : DampedBiasModel(ctx), neighbours_(cfg.neighbours) {
  const auto lopts = b1_.options().dtype(torch::kLong);
  // The lists are registered empty: their length follows from the fit (and from the saved
  // state, train/checkpoint.h).
  profile_ptr_ = register_buffer("profile_ptr", torch::zeros({n1_ + 1}, lopts));
  profile_items_ = register_buffer("profile_items", torch::zeros({0}, lopts));
  // No rows: binary interactions (and every directory written before counts were read).
  profile_weights_ = register_buffer("profile_weights", torch::zeros({0}, b1_.options()));
  row_ptr_ = register_buffer("row_ptr", torch::zeros({n2_ + 1}, lopts));
  targets_ = register_buffer("targets", torch::zeros({0}, lopts));
  weights_ = register_buffer("weights", torch::zeros({0}, b1_.options()));
}

ScoreFactors ItemKnnModel::score_factors() {
  if (n2_ > kMaxDenseExportItems || row_ptr_.size(0) != n2_ + 1) return {};
  torch::NoGradGuard no_grad;
  const at::Tensor ptr = row_ptr_.to(torch::kCPU, torch::kLong);
  const at::Tensor source =
      torch::repeat_interleave(torch::arange(n2_, ptr.options()), ptr.slice(0, 1) - ptr.slice(0, 0, n2_));
  at::Tensor s = torch::zeros({n2_, n2_}, torch::kFloat);
  s.index_put_({source, targets_.to(torch::kCPU, torch::kLong)}, weights_.to(torch::kCPU, torch::kFloat),
               true);
  ScoreFactors f;
  f.users_are_interactions = true;
  f.items = s.t().contiguous();
  f.meaning = profile_weights_.numel() > 0
                  ? "itemknn: score = x_u S, x_u the user's row of log(1 + count) weights, S the kept cosine "
                    "similarities of the weighted columns"
                  : "itemknn: score = x_u S, x_u the user's binary row of rated items, S the kept cosine "
                    "similarities";
  return f;
}

at::Tensor ItemKnnModel::score_items(const at::Tensor& users, int64_t n2) {
  TORCH_CHECK(n2 == n2_, "ItemKnnModel: built for ", n2_, " items, asked for ", n2);
  torch::NoGradGuard no_grad;
  const at::Tensor u = users.to(profile_ptr_.device(), torch::kLong);
  // The rated items of the block: (row in the block, item).
  const at::Tensor start = profile_ptr_.index_select(0, u);
  const auto [row, pos] = expand_rows(start, profile_ptr_.index_select(0, u + 1) - start);
  return scores_of_entries(
      u.size(0), row, profile_items_.index_select(0, pos),
      profile_weights_.numel() > 0 ? profile_weights_.index_select(0, pos) : at::Tensor());
}

at::Tensor ItemKnnModel::score_rated_items(const std::vector<std::vector<int64_t>>& rated) {
  torch::NoGradGuard no_grad;
  const auto [row, items] = entries_of_lists(rated, profile_ptr_.device());
  return scores_of_entries(static_cast<int64_t>(rated.size()), row, items, at::Tensor());
}

ScoreTerms ItemKnnModel::score_terms(int64_t user, int64_t item, const Dataset& ds) {
  (void)ds;  // the profile the scores read is the model's own (training, validation, added)
  at::NoGradGuard no_grad;
  const at::Tensor ptr = profile_ptr_.to(at::kCPU), rated = profile_items_.to(at::kCPU);
  const at::Tensor rows = row_ptr_.to(at::kCPU), targets = targets_.to(at::kCPU);
  const at::Tensor weights = weights_.to(at::kCPU, at::kDouble);
  const bool counts = profile_weights_.numel() > 0;
  const at::Tensor entry_weights = counts ? profile_weights_.to(at::kCPU, at::kDouble) : at::Tensor();
  ScoreTerms out;
  out.method = counts
                   ? "itemknn: score = x_u S = the sum of w_ui S_ij over the items i you interacted with "
                     "(w_ui = log(1 + count), S: kept cosines)"
                   : "itemknn: score = x_u S = the sum of S_ij over the items i you rated (S: kept cosines)";
  for (int64_t e = ptr.data_ptr<int64_t>()[user]; e < ptr.data_ptr<int64_t>()[user + 1]; ++e) {
    const int64_t i = rated.data_ptr<int64_t>()[e];
    double w = 0;
    for (int64_t k = rows.data_ptr<int64_t>()[i]; k < rows.data_ptr<int64_t>()[i + 1]; ++k)
      if (targets.data_ptr<int64_t>()[k] == item) w += weights.data_ptr<double>()[k];
    out.terms.push_back({user, i, counts ? entry_weights.data_ptr<double>()[e] * w : w, ""});
  }
  out.score = score_items(at::full({1}, user, at::kLong), n2_)[0][item].item<double>();
  return out;
}

at::Tensor ItemKnnModel::scores_of_entries(int64_t users, const at::Tensor& row, const at::Tensor& items,
                                           const at::Tensor& entry_weights) const {
  const at::Tensor first = row_ptr_.index_select(0, items);
  const at::Tensor lengths = row_ptr_.index_select(0, items + 1) - first;
  at::Tensor out = torch::zeros({users, n2_}, weights_.options());
  // Each rated item adds its row of S, in parts of at most kEntries (row in the block,
  // target, weight) triples, so that a block of heavy raters stays small.
  constexpr int64_t kEntries = int64_t{1} << 21;
  const at::Tensor ends = torch::cumsum(lengths, 0).to(torch::kCPU);
  const int64_t* end = ends.data_ptr<int64_t>();
  const int64_t count = ends.size(0);
  for (int64_t p0 = 0; p0 < count;) {
    const int64_t before = p0 == 0 ? 0 : end[p0 - 1];
    const int64_t p1 = std::max(
        p0 + 1, static_cast<int64_t>(std::upper_bound(end + p0, end + count, before + kEntries) - end));
    const auto [owner, slot] = expand_rows(first.slice(0, p0, p1), lengths.slice(0, p0, p1));
    at::Tensor added = weights_.index_select(0, slot);
    if (entry_weights.defined()) added = added * entry_weights.slice(0, p0, p1).index_select(0, owner);
    out.index_put_({row.slice(0, p0, p1).index_select(0, owner), targets_.index_select(0, slot)}, added,
                   /*accumulate=*/true);
    p0 = p1;
  }
  return out;
}

void ItemKnnModel::nodes_added(const ModelContext& ctx, int64_t trained_users, int64_t trained_items) {
  torch::NoGradGuard no_grad;
  // The rows of S of added items are empty: their starts repeat the saved end (the state
  // grew them with zeros, infer/trained_model.cpp).
  if (n2_ > trained_items) {
    const at::Tensor end = row_ptr_.narrow(0, trained_items, 1).clone();
    row_ptr_.narrow(0, trained_items + 1, n2_ - trained_items).copy_(end.expand({n2_ - trained_items}));
  }
  add_user_rows(profile_ptr_, profile_items_, ctx, trained_users, n1_, &profile_weights_);
}

void ItemKnnModel::fit_on(const std::vector<const RatingList*>& ratings, bool weighted) {
  torch::NoGradGuard no_grad;
  const InteractionRows by_user = distinct_rows(ratings, n1_, true, weighted),
                        by_item = distinct_rows(ratings, n2_, false, weighted);
  // Weighted: each column's norm |w_:j| (binary: the square root of its count, below).
  std::vector<double> norm;
  if (weighted) {
    norm.assign(static_cast<size_t>(n2_), 0.0);
    for (int64_t j = 0; j < n2_; ++j) {
      double squares = 0;
      for (int64_t a = by_item.ptr[j]; a < by_item.ptr[j + 1]; ++a) {
        const double w = by_item.weight[static_cast<size_t>(a)];
        squares += w * w;
      }
      norm[static_cast<size_t>(j)] = std::sqrt(squares);
    }
  }
  // Column j of S: its co-rated items by cosine, the k largest and the ties of the k-th.
  std::vector<std::vector<std::pair<int64_t, double>>> columns(static_cast<size_t>(n2_));
  at::parallel_for(0, n2_, 64, [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> shared(static_cast<size_t>(n2_), 0), touched;
    std::vector<double> dot(weighted ? static_cast<size_t>(n2_) : 0, 0.0);  // <w_:i, w_:j>
    std::vector<double> sims;
    // Every co-rated item of a column before the k largest are kept: a scratch list, so that
    // each column holds only what it keeps (at 260,000 items the columns' spare capacity
    // was most of the fit's 1.2 GB, docs/experiments.md).
    std::vector<std::pair<int64_t, double>> col;
    for (int64_t j = lo; j < hi; ++j) {
      touched.clear();
      for (int64_t a = by_item.ptr[j]; a < by_item.ptr[j + 1]; ++a) {
        const int64_t u = by_item.index[static_cast<size_t>(a)];
        for (int64_t b = by_user.ptr[u]; b < by_user.ptr[u + 1]; ++b) {
          const int64_t i = by_user.index[static_cast<size_t>(b)];
          if (i == j) continue;
          if (shared[static_cast<size_t>(i)]++ == 0) touched.push_back(i);
          if (weighted)
            dot[static_cast<size_t>(i)] += static_cast<double>(by_item.weight[static_cast<size_t>(a)]) *
                                           static_cast<double>(by_user.weight[static_cast<size_t>(b)]);
        }
      }
      col.clear();
      const double nj = static_cast<double>(by_item.size(j));
      for (const int64_t i : touched) {
        const auto si = static_cast<size_t>(i);
        if (weighted) {
          const double denominator = norm[static_cast<size_t>(j)] * norm[si];
          col.emplace_back(i, denominator > 0 ? dot[si] / denominator : 0.0);
          dot[si] = 0;
        } else {
          col.emplace_back(
              i, static_cast<double>(shared[si]) / std::sqrt(nj * static_cast<double>(by_item.size(i))));
        }
        shared[si] = 0;
      }
      if (static_cast<int64_t>(col.size()) > neighbours_) {
        sims.clear();
        for (const auto& c : col) sims.push_back(c.second);
        std::nth_element(sims.begin(), sims.begin() + (neighbours_ - 1), sims.end(), std::greater<double>());
        const double kth = sims[static_cast<size_t>(neighbours_ - 1)];
        col.erase(std::remove_if(col.begin(), col.end(), [&](const auto& c) { return c.second < kth; }),
                  col.end());
      }
      columns[static_cast<size_t>(j)].assign(col.begin(), col.end());
    }
  });
  // S by row (what scoring adds up): item i -> the columns that kept it.
  std::vector<int64_t> row_ptr(static_cast<size_t>(n2_) + 1, 0);
  for (const auto& col : columns)
    for (const auto& c : col) ++row_ptr[static_cast<size_t>(c.first) + 1];
  for (size_t i = 1; i < row_ptr.size(); ++i) row_ptr[i] += row_ptr[i - 1];
  std::vector<int64_t> targets(static_cast<size_t>(row_ptr.back())), next(row_ptr.begin(), row_ptr.end() - 1);
  std::vector<float> weights(targets.size());
  for (int64_t j = 0; j < n2_; ++j)
    for (const auto& [i, s] : columns[static_cast<size_t>(j)]) {
      const auto at = static_cast<size_t>(next[static_cast<size_t>(i)]++);
      targets[at] = j;
      weights[at] = static_cast<float>(s);
    }
  assign_buffer(profile_ptr_, torch::tensor(by_user.ptr, torch::kLong));
  assign_buffer(profile_items_, torch::tensor(by_user.index, torch::kLong));
  assign_buffer(profile_weights_, torch::tensor(by_user.weight, torch::kFloat));
  assign_buffer(row_ptr_, torch::tensor(row_ptr, torch::kLong));
  assign_buffer(targets_, torch::tensor(targets, torch::kLong));
  assign_buffer(weights_, torch::tensor(weights, torch::kFloat));
  fit_biases(ratings);
}

ClosedFormFit ItemKnnModel::fit(const Dataset& ds, const at::Device& device,
                                const std::function<void(const std::string&)>& log) {
  ClosedFormFit out;
  const auto t0 = std::chrono::steady_clock::now();
  auto predictions = [&](const RatingList& list) {
    return clipped_predictions(*this, list, ds.rating_min, ds.rating_max, device);
  };
  double ndcg = -1;
  const bool weighted = ds.feedback == "counts";
  if (!ds.validation.empty()) {
    fit_on({&ds.train}, weighted);
    const RankingProbe probe = validation_probe(ds, int64_t{1} << 22, device);
    if (!probe.empty()) {
      ndcg = probe.figure([&](const at::Tensor& b) { return score_items(b, n2_); }, ranking_figure());
      out.metrics[ranking_figure("val")] = ndcg;
      if (log)
        log("itemknn.neighbours = " + std::to_string(neighbours_) + ": validation " + ranking_label() + " " +
            fixed(ndcg, 4));
    }
    out.val_predictions = predictions(ds.validation);  // the biases of the training ratings
  }
  fit_on({&ds.train, &ds.validation}, weighted);
  if (!ds.test.empty()) out.test_predictions = predictions(ds.test);
  out.details["itemknn.neighbours"] = neighbours_;
  out.details["similarities_kept"] = targets_.size(0);
  out.details["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.summary.push_back("itemknn on " + ds.name + ": itemknn.neighbours = " + std::to_string(neighbours_) +
                        (ndcg >= 0 ? " (validation " + ranking_label() + " " + fixed(ndcg, 4) + ")" : "") +
                        ", " + std::to_string(targets_.size(0)) +
                        " similarities kept, refit on training + validation");
  return out;
}

/// The `itemknn` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_itemknn_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<ItemKnnModel>(cfg.itemknn, ctx);
}

}  // namespace symgnn::models
