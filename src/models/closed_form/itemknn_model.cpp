#include "models/closed_form/itemknn_model.h"

#include <torch/torch.h>

#include <algorithm>

namespace symgnn::models {

ItemKnnModel::ItemKnnModel(const ItemKnnConfig& cfg, const ModelContext& ctx)
    : InteractionModel(ctx), neighbours_(cfg.neighbours) {}

at::Tensor ItemKnnModel::item_weights(const at::Tensor& x, double neighbours) const {
  const at::Tensor norms = x.pow(2).sum(0).sqrt() + 1e-12;                         // [n2]
  at::Tensor s = torch::mm(x.t(), x) / (norms.unsqueeze(1) * norms.unsqueeze(0));  // cosine
  s.diagonal().zero_();
  const int64_t n2 = s.size(0), k = static_cast<int64_t>(neighbours);
  if (k < n2) {
    // Column j keeps the entries >= its k-th largest (ties kept, as the reference does).
    const at::Tensor kth = std::get<0>(s.topk(k, 0)).select(0, k - 1);  // [n2]
    s.masked_fill_(s < kth.unsqueeze(0), 0.0);
  }
  return s;
}

/// The `itemknn` row of symgnn/model_kinds.h (models/registry.cpp).
std::shared_ptr<RatingModel> make_itemknn_model(const RunConfig& cfg, const ModelContext& ctx) {
  return std::make_shared<ItemKnnModel>(cfg.itemknn, ctx);
}

}  // namespace symgnn::models
