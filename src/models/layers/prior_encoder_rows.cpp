// Some rows of the prior encoder's output (PriorEncoderImpl::rows, prior_encoder.h): the same
// aggregation, side branch and dense layer as forward() in eval mode, over the entries of
// those rows alone, so that a fold-in costs the rows' ratings, not the matrix's.
#include <torch/types.h>

#include "models/layers/prior_encoder.h"

namespace symgnn::models {

at::Tensor PriorEncoderImpl::rows(int side, int64_t m, const std::vector<int64_t>& row,
                                  const std::vector<int64_t>& cls, const std::vector<int64_t>& col,
                                  const std::vector<float>& val, const at::Tensor& x) {
  TORCH_CHECK(row.size() == cls.size() && row.size() == col.size() && row.size() == val.size(),
              "PriorEncoder rows: entry lists differ in length");
  const at::Tensor& other = side == 0 ? e2_ : e1_;
  const auto k = static_cast<int64_t>(hn1_.size());
  const int64_t w = other.size(-1);
  const auto opts = other.options();
  const auto longs = [&](const std::vector<int64_t>& v) {
    return torch::tensor(at::ArrayRef<int64_t>(v), torch::kLong).to(other.device());
  };
  // Each entry's message gathered at once: the class's block of the other side's row (concat
  // stacking) or its row of the class's table (sum stacking), weighted, then summed into the
  // rows: aggregate()'s products, entry by entry.
  const at::Tensor r = longs(row), c = longs(cls), from = longs(col);
  const at::Tensor weight = torch::tensor(at::ArrayRef<float>(val), torch::kFloat).to(opts).unsqueeze(1);
  at::Tensor h;
  if (cfg_.prior_stacking == "sum") {
    h = torch::zeros({m, w}, opts).index_add_(0, r, other.index({c, from}) * weight);
  } else {
    const int64_t block = w / k;
    const at::Tensor table = other.narrow(1, 0, k * block).view({other.size(0), k, block});
    // Row r's class-c block is row r k + c of an [m k, block] view.
    h = torch::zeros({m * k, block}, opts)
            .index_add_(0, r * k + c, table.index({from, c}) * weight)
            .view({m, k * block});
  }
  h = torch::relu(h);
  torch::nn::Linear& branch = side == 0 ? side1_ : side2_;
  if (branch) {
    const at::Tensor& bias = side == 0 ? side1_bias_ : side2_bias_;
    const at::Tensor in = x.defined() ? x.to(opts) : torch::zeros({m, branch->weight.size(1)}, opts);
    h = torch::cat({h, torch::relu(branch->forward(in)) + bias}, 1);
  }
  torch::nn::Linear& dense = side == 1 && dense2_ ? dense2_ : dense1_;
  // One row (the user's): a matrix-vector product, which reads the weight as it lies.
  if (m == 1) return torch::mv(dense->weight, h[0]).unsqueeze(0);
  return dense->forward(h);
}

}  // namespace symgnn::models
