// The low-rank model's layers in double precision on tiny sizes (n1 = 5, n2 = 4, d = 3):
// gradients against central differences, blocked against unblocked attention, and the
// prior aggregation against a dense reference.
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "lowrank_test_util.h"
#include "models/layers/cge.h"
#include "models/layers/cross_attention.h"
#include "models/layers/mlp.h"
#include "models/layers/prior_aggregation.h"
#include "models/layers/within_attention.h"

namespace symgnn::models {
namespace {

using testing::expect_gradient_matches;
using testing::weighted_sum;

constexpr int64_t kN1 = 5, kN2 = 4, kD = 3;

at::Tensor leaf(std::initializer_list<int64_t> shape) {
  return torch::randn(shape, torch::kDouble).requires_grad_(true);
}

TEST(LowRankCGE, MatchesDenseAhAndGradientsMatchFiniteDifferences) {
  torch::manual_seed(1);
  const at::Tensor at = testing::dense_normalized(testing::random_graph(kN1, 0.5, torch::kDouble));
  CGE cge(testing::sparse_of(at), kD, /*layers=*/2, "tanh");
  cge->to(torch::kDouble);
  auto params = cge->named_parameters();
  // Nonzero logits so that s differs per node.
  {
    torch::NoGradGuard g;
    params["s_logit"].copy_(torch::randn({kN1}, torch::kDouble));
  }
  const at::Tensor uh = leaf({kN1, kD}), w = torch::randn({kN1, kD}, torch::kDouble);

  // Dense reference: Ah = diag(s) + (I - diag(s)) At, U <- tanh(Ah U W).
  {
    torch::NoGradGuard g;
    const at::Tensor s = torch::sigmoid(params["s_logit"]);
    const at::Tensor ah = torch::diag(s) + (torch::eye(kN1, torch::kDouble) - torch::diag(s)).mm(at);
    at::Tensor u = uh;
    for (const char* name : {"w0", "w1"}) u = torch::tanh(ah.mm(u).mm(params[name]));
    EXPECT_TRUE(torch::allclose(cge->forward(uh), u, 1e-12, 1e-12));
  }
  const auto f = [&] { return weighted_sum(cge->forward(uh), w); };
  expect_gradient_matches(f, uh, "dU");
  expect_gradient_matches(f, params["s_logit"], "ds_logit");
  expect_gradient_matches(f, params["w0"], "dW0");
  expect_gradient_matches(f, params["w1"], "dW1");
}

TEST(LowRankCGE, IdentityGraphLeavesOnlyTheWeights) {
  torch::manual_seed(2);
  CGE cge(graph::identity(kN1), kD, 1, "identity");
  cge->to(torch::kDouble);
  const at::Tensor uh = torch::randn({kN1, kD}, torch::kDouble);
  EXPECT_TRUE(torch::allclose(cge->forward(uh), uh.mm(cge->named_parameters()["w0"]), 1e-12, 1e-12));
}

TEST(LowRankAttention, BlockedEqualsUnblockedInValuesAndGradients) {
  torch::manual_seed(3);
  const at::Tensor q = leaf({kN1, kD}), k = leaf({kN2, kD}), v = leaf({kN2, 2});
  const at::Tensor w = torch::randn({kN1, 2}, torch::kDouble);
  const at::Tensor reference = torch::softmax(q.mm(k.t()), 1).mm(v);
  const auto ref_grads = torch::autograd::grad({weighted_sum(reference, w)}, {q, k, v});
  for (int64_t block : {1, 2, 3, 4, 5, 100}) {
    const at::Tensor out = blocked_attention(q, k, v, block);
    EXPECT_TRUE(torch::allclose(out, reference, 1e-13, 1e-13)) << "block " << block;
    const auto grads = torch::autograd::grad({weighted_sum(out, w)}, {q, k, v});
    for (size_t i = 0; i < 3; ++i)
      EXPECT_TRUE(torch::allclose(grads[i], ref_grads[i], 1e-12, 1e-12))
          << "block " << block << " grad " << i;
  }
  const auto f = [&] { return weighted_sum(blocked_attention(q, k, v, 2), w); };
  expect_gradient_matches(f, q, "dQ");
  expect_gradient_matches(f, k, "dK");
  expect_gradient_matches(f, v, "dV");
}

TEST(LowRankAttention, WithinAttentionIsPhiOfRowSoftmaxTimesUhW) {
  torch::manual_seed(4);
  WithinAttention within(kD, /*block=*/2, "tanh");
  within->to(torch::kDouble);
  const at::Tensor w_att = within->named_parameters()["w_att"];
  const at::Tensor uh = leaf({kN1, kD}), w = torch::randn({kN1, kD}, torch::kDouble);
  {
    torch::NoGradGuard g;
    const at::Tensor b = torch::softmax(uh.mm(uh.t()), 1);  // n1 x n1
    EXPECT_TRUE(torch::allclose(within->forward(uh), torch::tanh(b.mm(uh).mm(w_att)), 1e-12, 1e-12));
  }
  const auto f = [&] { return weighted_sum(within->forward(uh), w); };
  expect_gradient_matches(f, uh, "dUh");
  expect_gradient_matches(f, w_att, "dW_att");
}

TEST(LowRankAttention, CrossAttentionAttendsOverTheOtherSide) {
  torch::manual_seed(5);
  CrossAttention cross(kD, /*block=*/3, "tanh");
  cross->to(torch::kDouble);
  const at::Tensor theta = cross->named_parameters()["theta_c"];
  const at::Tensor uh1 = leaf({kN1, kD}), uh2 = leaf({kN2, kD}), w = torch::randn({kN1, kD}, torch::kDouble);
  {
    torch::NoGradGuard g;
    const at::Tensor c = torch::softmax(uh1.mm(uh2.t()), 1);  // n1 x n2
    EXPECT_TRUE(torch::allclose(cross->forward(uh1, uh2), torch::tanh(c.mm(uh2).mm(theta)), 1e-12, 1e-12));
  }
  const auto f = [&] { return weighted_sum(cross->forward(uh1, uh2), w); };
  expect_gradient_matches(f, uh1, "dUh1");
  expect_gradient_matches(f, uh2, "dUh2");
  expect_gradient_matches(f, theta, "dTheta_c");
}

/// K = 3 classes of a random partial n1 x n2 rating matrix, as dense 0/1 matrices.
std::vector<at::Tensor> random_classes() {
  const at::Tensor observed = torch::rand({kN1, kN2}, torch::kDouble) < 0.6;
  const at::Tensor cls = torch::randint(0, 3, {kN1, kN2}, torch::kLong);
  std::vector<at::Tensor> h;
  for (int64_t k = 0; k < 3; ++k) h.push_back((observed & (cls == k)).to(torch::kDouble));
  return h;
}

/// The printed reading with dense matrices: V_k = tanh(norm(H_k) Uh_other Theta_k).
at::Tensor dense_prior(const std::vector<at::Tensor>& h, const at::Tensor& uh_other, PriorAggregation& prior,
                       bool symmetric) {
  auto params = prior->named_parameters();
  at::Tensor deg = torch::zeros({h[0].size(0)}, torch::kDouble),
             deg_other = torch::zeros({h[0].size(1)}, torch::kDouble);
  for (const auto& hk : h) {
    deg = deg + hk.sum(1);
    deg_other = deg_other + hk.sum(0);
  }
  const at::Tensor inv = torch::where(deg > 0, 1 / deg, torch::zeros_like(deg));
  const at::Tensor inv_other = torch::where(deg_other > 0, 1 / deg_other, torch::zeros_like(deg_other));
  std::vector<at::Tensor> v;
  for (size_t k = 0; k < h.size(); ++k) {
    const at::Tensor hn =
        symmetric ? inv.sqrt().unsqueeze(1) * h[k] * inv_other.sqrt().unsqueeze(0) : inv.unsqueeze(1) * h[k];
    v.push_back(torch::tanh(hn.mm(uh_other).mm(params["theta"][static_cast<int64_t>(k)])));
  }
  return torch::tanh(torch::linear(torch::cat(v, 1), params["mlp.weight"], params["mlp.bias"]));
}

std::vector<graph::SparseMatrix> sparse_classes(const std::vector<at::Tensor>& h) {
  std::vector<graph::SparseMatrix> out;
  for (const auto& hk : h) out.push_back(testing::sparse_of(hk));
  return out;
}

const PriorOrder kOrders[] = {PriorOrder::kAggregateFirst, PriorOrder::kTransformFirst};

TEST(LowRankPrior, MatchesDenseReferenceForBothNormalisationsAndOrders) {
  torch::manual_seed(6);
  const auto h = random_classes();
  for (bool symmetric : {false, true})
    for (const PriorOrder order : kOrders) {
      PriorAggregation prior(sparse_classes(h), kD, symmetric ? "symmetric" : "left", 0.0, "tanh");
      prior->to(torch::kDouble);
      prior->set_order(order);
      const at::Tensor uh2 = leaf({kN2, kD}), w = torch::randn({kN1, kD}, torch::kDouble);
      {
        torch::NoGradGuard g;
        EXPECT_TRUE(
            torch::allclose(prior->forward(uh2), dense_prior(h, uh2, prior, symmetric), 1e-12, 1e-12));
      }
      const auto f = [&] { return weighted_sum(prior->forward(uh2), w); };
      expect_gradient_matches(f, uh2, "dUh_other");
      expect_gradient_matches(f, prior->named_parameters()["theta"], "dTheta");
      expect_gradient_matches(f, prior->named_parameters()["mlp.weight"], "dW_p");
    }
}

TEST(LowRankPrior, ItemSideUsesTheTransposes) {
  torch::manual_seed(7);
  const auto h = random_classes();
  std::vector<at::Tensor> ht;
  std::vector<graph::SparseMatrix> sparse_t;
  for (const auto& hk : h) {
    ht.push_back(hk.t().contiguous());
    sparse_t.push_back(testing::sparse_of(hk).transpose());
  }
  for (const PriorOrder order : kOrders) {
    PriorAggregation prior(sparse_t, kD, "left", 0.0, "tanh");
    prior->to(torch::kDouble);
    prior->set_order(order);
    const at::Tensor uh1 = torch::randn({kN1, kD}, torch::kDouble);
    EXPECT_TRUE(torch::allclose(prior->forward(uh1), dense_prior(ht, uh1, prior, false), 1e-12, 1e-12));
  }
}

TEST(LowRankPrior, EdgeDropoutMasksForwardAndBackwardAlike) {
  for (const PriorOrder order : kOrders) {
    torch::manual_seed(8);
    const auto h = random_classes();
    const double p = 0.5;
    PriorAggregation prior(sparse_classes(h), kD, "left", p, "tanh");
    prior->to(torch::kDouble);
    prior->set_order(order);
    const at::Tensor uh2 = leaf({kN2, kD}), w = torch::randn({kN1, kD}, torch::kDouble);

    // Evaluation mode: no dropout.
    prior->eval();
    const at::Tensor clean = prior->forward(uh2).detach();
    {
      torch::NoGradGuard g;
      EXPECT_TRUE(torch::allclose(clean, dense_prior(h, uh2, prior, false), 1e-12, 1e-12));
    }

    // Training: replay the layer's mask draws (one bernoulli per class, CSR order).
    prior->train();
    torch::manual_seed(99);
    const at::Tensor out = prior->forward(uh2);
    const at::Tensor grad = torch::autograd::grad({weighted_sum(out, w)}, {uh2})[0];
    torch::manual_seed(99);
    std::vector<at::Tensor> dropped;
    at::Tensor any_dropped = torch::zeros({}, torch::kBool);
    for (size_t k = 0; k < h.size(); ++k) {
      const auto& hn = prior->normalized(k);
      const at::Tensor keep = torch::empty_like(hn.values).bernoulli_(1 - p) / (1 - p);
      any_dropped = any_dropped | (keep == 0).any();
      at::Tensor dense = torch::zeros({kN1, kN2}, torch::kDouble);
      dense.index_put_({hn.row_idx, hn.col_idx}, keep);
      dropped.push_back(dense * h[k]);
    }
    ASSERT_TRUE(any_dropped.item<bool>());
    // dense_prior normalises by the degrees of its input; the layer by the full degrees.
    at::Tensor deg = torch::zeros({kN1}, torch::kDouble);
    for (const auto& hk : h) deg = deg + hk.sum(1);
    const at::Tensor inv = torch::where(deg > 0, 1 / deg, torch::zeros_like(deg));
    auto params = prior->named_parameters();
    const at::Tensor uh2_ref = uh2.detach().clone().requires_grad_(true);
    std::vector<at::Tensor> v;
    for (size_t k = 0; k < h.size(); ++k)
      v.push_back(torch::tanh(
          (inv.unsqueeze(1) * dropped[k]).mm(uh2_ref).mm(params["theta"][static_cast<int64_t>(k)])));
    const at::Tensor ref =
        torch::tanh(torch::linear(torch::cat(v, 1), params["mlp.weight"], params["mlp.bias"]));
    EXPECT_TRUE(torch::allclose(out, ref, 1e-12, 1e-12));
    const at::Tensor ref_grad = torch::autograd::grad({weighted_sum(ref, w)}, {uh2_ref})[0];
    EXPECT_TRUE(torch::allclose(grad, ref_grad, 1e-12, 1e-12));
  }
}

TEST(LowRankMlp, EmbeddingAloneOrWithProjectedSideFeatures) {
  torch::manual_seed(9);
  FeatureMlp plain(kN1, kD, at::Tensor());
  EXPECT_EQ(plain->forward().sizes(), (std::vector<int64_t>{kN1, kD}));
  std::vector<std::string> names;
  for (const auto& p : plain->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"embedding", "linear.weight", "linear.bias"}));

  FeatureMlp side(kN1, kD, torch::randn({kN1, 7}));
  side->to(torch::kDouble);
  const at::Tensor uh = side->forward();
  EXPECT_EQ(uh.sizes(), (std::vector<int64_t>{kN1, kD}));
  EXPECT_EQ(uh.scalar_type(), torch::kDouble);
  EXPECT_EQ(side->named_parameters()["side.weight"].sizes(), (std::vector<int64_t>{kD, 7}));
  EXPECT_EQ(side->named_parameters()["linear.weight"].sizes(), (std::vector<int64_t>{kD, 2 * kD}));
  const at::Tensor w = torch::randn({kN1, kD}, torch::kDouble);
  expect_gradient_matches([&] { return weighted_sum(side->forward(), w); },
                          side->named_parameters()["side.weight"], "dW_side");
}

}  // namespace
}  // namespace symgnn::models
