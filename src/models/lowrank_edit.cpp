// A graph edit carried over by the low-rank model (LowRankModel::take_graph_edit): the model
// rebuilt on the edited graphs takes the trace of the model before the edit and recomputes
// what the edit reaches. U^(p) reads the ratings and weights alone, so it is the same; each
// side's CGE recomputes the rows of At that differ and the rows that gather from a changed one
// (CGEImpl::retrace, cge_rows.cpp); U changes in the rows whose CGE output did. The result is
// this model's trace and the representations it scores with, so that the next edit and the
// next fold-in start from it too.
#include <torch/types.h>
#include <torch/utils.h>

#include <memory>

#include "models/lowrank_trace.h"

namespace symgnn::models {

bool LowRankModel::take_graph_edit(RatingModel& before_model) {
  if (!traces_rows()) return false;
  // A created node's rows are means over its row of At, which an edit may change.
  if (graph_prior_rows1_.numel() > 0 || graph_prior_rows2_.numel() > 0) return false;
  // The member before the edit, of this kind (rebuilt from its weights): its trace.
  const std::shared_ptr<const FoldTrace> b = before_model.kept_trace();
  if (!b) return false;
  if (b->u1.size(0) != at1_.rows || b->u2.size(0) != at2_.rows) return false;
  torch::NoGradGuard no_grad;
  auto t = std::make_shared<FoldTrace>(*b);
  for (int side = 0; side < 2; ++side) {
    Side& s = side == 0 ? side1_ : side2_;
    if (!s.cge) continue;
    NodeRows changed;
    (side == 0 ? t->cge1 : t->cge2) = s.cge->retrace(side == 0 ? b->cge1 : b->cge2, changed);
    if (changed.index.empty()) continue;
    at::Tensor& u = side == 0 ? t->u1 : t->u2;
    const at::Tensor& up = side == 0 ? t->up1 : t->up2;
    const at::Tensor index = torch::tensor(at::ArrayRef<int64_t>(changed.index), torch::kLong).to(u.device());
    u = u.index_copy(0, index, fused_rows(s.fusion, changed.values, up.index_select(0, index)));
  }
  scored_u1_ = t->u1;
  scored_u2_ = t->u2;
  const std::lock_guard<std::mutex> lock(fold_mutex_);
  fold_trace_ = std::move(t);
  return true;
}

}  // namespace symgnn::models
