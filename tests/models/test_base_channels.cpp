// The four channels of the base model against naive dense references on tiny graphs:
// values and gradients (in double), with blocked attention and several hops.
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <vector>

#include "lowrank_test_util.h"
#include "models/layers/activation.h"
#include "models/layers/base_channels.h"

namespace symgnn::models {
namespace {

constexpr int64_t kN1 = 7, kN2 = 5, kD = 3;

struct Inputs {
  at::Tensor u1, u2;          // leaves in double
  at::Tensor a1, a2;          // dense At (normalised)
  std::vector<at::Tensor> h;  // dense raw H_k
};

Inputs make_inputs(unsigned seed) {
  torch::manual_seed(seed);
  Inputs in;
  in.u1 = torch::randn({kN1, kD}, torch::kDouble).requires_grad_();
  in.u2 = torch::randn({kN2, kD}, torch::kDouble).requires_grad_();
  in.a1 = testing::dense_normalized(testing::random_graph(kN1, 0.5, torch::kDouble));
  in.a2 = testing::dense_normalized(testing::random_graph(kN2, 0.5, torch::kDouble));
  // Three classes partitioning a random set of observed cells.
  const at::Tensor observed = torch::rand({kN1, kN2}, torch::kDouble) < 0.6;
  const at::Tensor cls = torch::randint(0, 3, {kN1, kN2}, torch::kLong);
  for (int64_t k = 0; k < 3; ++k) in.h.push_back((observed & (cls == k)).to(torch::kDouble));
  return in;
}

/// Sum over the channel of a random weighting, so every entry counts.
at::Tensor loss_of(const at::Tensor& x, const at::Tensor& weight) {
  return testing::weighted_sum(x, weight);
}

/// Gradients of `x_ours` and `x_ref` (n1 x n2, both functions of `leaves`) agree.
void expect_same_gradients(const at::Tensor& x_ours, const at::Tensor& x_ref,
                           const std::vector<at::Tensor>& leaves, const std::vector<std::string>& names) {
  const at::Tensor weight = torch::randn(x_ours.sizes(), x_ours.options());
  const auto g1 = torch::autograd::grad({loss_of(x_ours, weight)}, leaves, {}, true, false, true);
  const auto g2 = torch::autograd::grad({loss_of(x_ref, weight)}, leaves, {}, true, false, true);
  for (size_t i = 0; i < leaves.size(); ++i) {
    ASSERT_TRUE(g1[i].defined() && g2[i].defined()) << names[i];
    EXPECT_TRUE(torch::allclose(g1[i], g2[i], 1e-9, 1e-10)) << names[i] << "\n" << g1[i] << "\n" << g2[i];
  }
}

at::Tensor dense_ah(const at::Tensor& a, const at::Tensor& s_logit) {
  const at::Tensor s = torch::sigmoid(s_logit);
  return torch::diag(s) + (1 - s).unsqueeze(1) * a;  // diag(s) + (I - diag(s)) At
}

TEST(BaseChannels, CgeChannelEqualsTheDenseSumOverHops) {
  for (const char* act : {"tanh", "relu"}) {
    const Inputs in = make_inputs(1);
    CgeChannel cge(testing::sparse_of(in.a1), testing::sparse_of(in.a2), kD, 3);
    cge->to(torch::kDouble);
    auto p = cge->named_parameters();
    {
      torch::NoGradGuard g;
      p["s1_logit"].normal_();
      p["s2_logit"].normal_();
    }
    const at::Tensor x = dense_channel(cge->factors(in.u1, in.u2), act);
    const at::Tensor ah1 = dense_ah(in.a1, p["s1_logit"]), ah2 = dense_ah(in.a2, p["s2_logit"]);
    at::Tensor ref = torch::zeros({kN1, kN2}, torch::kDouble);
    for (int64_t i = 1; i <= 3; ++i) {
      const at::Tensor w = p["w" + std::to_string(i - 1)];
      const at::Tensor wi = w.mm(w.t());  // W_i = W'_i W'_i^T
      const at::Tensor ah1i = torch::linalg_matrix_power(ah1, i), ah2i = torch::linalg_matrix_power(ah2, i);
      ref = ref + activate(ah1i.mm(in.u1).mm(wi).mm(in.u2.t()).mm(ah2i.t()), act);
    }
    EXPECT_EQ(x.sizes(), (std::vector<int64_t>{kN1, kN2}));
    EXPECT_TRUE(torch::allclose(x, ref, 1e-10, 1e-12)) << act;
    expect_same_gradients(x, ref, {in.u1, in.u2, p["s1_logit"], p["s2_logit"], p["w0"], p["w2"]},
                          {"u1", "u2", "s1_logit", "s2_logit", "w0", "w2"});
  }
}

TEST(BaseChannels, WithinChannelEqualsTheDenseAttentionProduct) {
  const Inputs in = make_inputs(2);
  for (int64_t block : {2, 512}) {  // blocked and whole
    WithinChannel within(kD, block);
    within->to(torch::kDouble);
    const at::Tensor wa = within->named_parameters()["w_a"];
    const at::Tensor x = dense_channel({within->factors(in.u1, in.u2)}, "tanh");
    const at::Tensor b1 = torch::softmax(in.u1.mm(in.u1.t()), 1), b2 = torch::softmax(in.u2.mm(in.u2.t()), 1);
    const at::Tensor ref = torch::tanh(b1.mm(in.u1).mm(wa).mm(in.u2.t()).mm(b2.t()));
    EXPECT_TRUE(torch::allclose(x, ref, 1e-10, 1e-12)) << "block " << block;
    expect_same_gradients(x, ref, {in.u1, in.u2, wa}, {"u1", "u2", "w_a"});
  }
}

TEST(BaseChannels, PriorChannelEqualsTheDensePerClassProjection) {
  const Inputs in = make_inputs(3);
  std::vector<graph::SparseMatrix> h;
  for (const auto& hk : in.h) h.push_back(testing::sparse_of(hk));
  PriorChannel prior(h, kD, 0.0);
  prior->to(torch::kDouble);
  const at::Tensor theta = prior->named_parameters()["theta"];
  const at::Tensor x = dense_channel({prior->factors(in.u1, in.u2)}, "tanh");
  // Hn_k = D1^-1/2 H_k D2^-1/2, degrees over all classes.
  const at::Tensor all = in.h[0] + in.h[1] + in.h[2];
  const at::Tensor r1 = torch::where(all.sum(1) > 0, all.sum(1).rsqrt(), torch::zeros({kN1}, torch::kDouble));
  const at::Tensor r2 = torch::where(all.sum(0) > 0, all.sum(0).rsqrt(), torch::zeros({kN2}, torch::kDouble));
  at::Tensor s = torch::zeros({kD, kD}, torch::kDouble);
  for (int64_t k = 0; k < 3; ++k) {
    const at::Tensor hn = r1.unsqueeze(1) * in.h[static_cast<size_t>(k)] * r2.unsqueeze(0);
    EXPECT_TRUE(torch::allclose(prior->normalized(static_cast<size_t>(k)).to_dense(), hn, 1e-12, 1e-14));
    s = s + in.u1.t().mm(hn).mm(in.u2).mm(theta[k]);
  }
  const at::Tensor ref = torch::tanh(in.u1.mm(s).mm(in.u2.t()));
  EXPECT_TRUE(torch::allclose(x, ref, 1e-10, 1e-12));
  expect_same_gradients(x, ref, {in.u1, in.u2, theta}, {"u1", "u2", "theta"});
}

TEST(BaseChannels, PriorEdgeDropoutActsOnlyWhileTraining) {
  const Inputs in = make_inputs(4);
  std::vector<graph::SparseMatrix> h;
  for (const auto& hk : in.h) h.push_back(testing::sparse_of(hk));
  PriorChannel prior(h, kD, 0.5);
  prior->to(torch::kDouble);
  torch::NoGradGuard g;
  prior->eval();
  const at::Tensor a = prior->factors(in.u1, in.u2).left, b = prior->factors(in.u1, in.u2).left;
  EXPECT_TRUE(torch::equal(a, b));
  prior->train();
  EXPECT_FALSE(torch::equal(prior->factors(in.u1, in.u2).left, prior->factors(in.u1, in.u2).left));
}

TEST(BaseChannels, CrossChannelEqualsTheDenseCrossAttentionProjection) {
  const Inputs in = make_inputs(5);
  for (int64_t block : {3, 512}) {
    CrossChannel cross(block);
    EXPECT_TRUE(cross->parameters().empty());
    const at::Tensor x = dense_channel({cross->factors(in.u1, in.u2)}, "tanh");
    const at::Tensor c = torch::softmax(in.u1.mm(in.u2.t()), 1);  // n1 x n2, rows over the items
    const at::Tensor ref = torch::tanh(in.u1.mm(in.u1.t()).mm(c).mm(in.u2).mm(in.u2.t()));
    EXPECT_TRUE(torch::allclose(x, ref, 1e-10, 1e-12)) << "block " << block;
    expect_same_gradients(x, ref, {in.u1, in.u2}, {"u1", "u2"});
  }
}

TEST(BaseChannels, GradientsMatchFiniteDifferences) {
  const Inputs in = make_inputs(6);
  CgeChannel cge(testing::sparse_of(in.a1), testing::sparse_of(in.a2), kD, 2);
  cge->to(torch::kDouble);
  const at::Tensor weight = torch::randn({kN1, kN2}, torch::kDouble);
  const auto f = [&] { return loss_of(dense_channel(cge->factors(in.u1, in.u2), "tanh"), weight); };
  testing::expect_gradient_matches(f, cge->named_parameters()["s1_logit"], "s1_logit");
  testing::expect_gradient_matches(f, in.u2, "u2");
  CrossChannel cross(2);
  const auto g = [&] { return loss_of(dense_channel({cross->factors(in.u1, in.u2)}, "tanh"), weight); };
  testing::expect_gradient_matches(g, in.u1, "cross u1");
}

}  // namespace
}  // namespace symgnn::models
