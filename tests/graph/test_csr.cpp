// Tests of src/graph/csr.cpp: CSR construction, transpose, and Y = A X with its gradient
// A^T dY, checked against dense products in double and against finite differences.
#include <gtest/gtest.h>
#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "symgnn/graph.h"

namespace symgnn::graph {
namespace {

const auto kDouble = torch::TensorOptions().dtype(torch::kDouble);

/// A random rows x cols double matrix with about `nnz` entries (duplicates included,
/// which from_coo sums), leaving some rows and columns empty.
SparseMatrix random_sparse(int64_t rows, int64_t cols, int64_t nnz, uint64_t seed) {
  torch::manual_seed(seed);
  auto r = torch::randint(rows - 1, {nnz}, torch::kLong);  // last row stays empty
  auto c = torch::randint(cols - 1, {nnz}, torch::kLong);  // last column stays empty
  auto v = torch::randn({nnz}, kDouble);
  return from_coo(rows, cols, r, c, v);
}

TEST(Csr, FromCooSumsDuplicatesAndSortsRows) {
  auto r = torch::tensor({2, 0, 2, 0, 2}, torch::kLong);
  auto c = torch::tensor({1, 2, 1, 0, 0}, torch::kLong);
  auto v = torch::tensor({1.0, 2.0, 3.0, 4.0, 5.0}, kDouble);
  const SparseMatrix a = from_coo(3, 3, r, c, v);
  EXPECT_EQ(a.nnz(), 4);
  EXPECT_EQ(a.values.scalar_type(), torch::kDouble);
  EXPECT_TRUE(torch::equal(a.row_ptr, torch::tensor({0, 2, 2, 4}, torch::kLong)));
  EXPECT_TRUE(torch::equal(a.col_idx, torch::tensor({0, 2, 0, 1}, torch::kLong)));
  EXPECT_TRUE(torch::equal(a.row_idx, torch::tensor({0, 0, 2, 2}, torch::kLong)));
  EXPECT_TRUE(torch::allclose(a.values, torch::tensor({4.0, 2.0, 5.0, 4.0}, kDouble)));
  auto dense = torch::zeros({3, 3}, kDouble);
  dense[0][0] = 4.0;
  dense[0][2] = 2.0;
  dense[2][0] = 5.0;
  dense[2][1] = 4.0;
  EXPECT_TRUE(torch::equal(a.to_dense(), dense));
}

TEST(Csr, FloatValuesStayFloat) {
  const SparseMatrix a = from_coo(2, 2, torch::tensor({0, 1}), torch::tensor({1, 0}), torch::ones({2}));
  EXPECT_EQ(a.values.scalar_type(), torch::kFloat);
  EXPECT_EQ(a.to_dense().scalar_type(), torch::kFloat);
}

TEST(Csr, FromCooRejectsOutOfRangeIndices) {
  EXPECT_THROW(from_coo(2, 2, torch::tensor({0, 2}), torch::tensor({0, 0}), torch::ones({2})), c10::Error);
  EXPECT_THROW(from_coo(2, 2, torch::tensor({0, 1}), torch::tensor({-1, 0}), torch::ones({2})), c10::Error);
  EXPECT_THROW(from_coo(2, 2, torch::tensor({0, 1}), torch::tensor({0}), torch::ones({2})), c10::Error);
}

TEST(Csr, TransposeIsTheDenseTranspose) {
  const SparseMatrix a = random_sparse(7, 5, 20, 1);
  const SparseMatrix t = a.transpose();
  EXPECT_EQ(t.rows, 5);
  EXPECT_EQ(t.cols, 7);
  EXPECT_TRUE(torch::equal(t.to_dense(), a.to_dense().t()));
  EXPECT_TRUE(torch::equal(t.transpose().to_dense(), a.to_dense()));
  // A hand-filled matrix without the stored transpose builds it on demand.
  SparseMatrix bare = a;
  bare.t_row_ptr = bare.t_col_idx = bare.t_values = bare.t_row_idx = at::Tensor();
  EXPECT_TRUE(torch::equal(bare.transpose().to_dense(), a.to_dense().t()));
}

TEST(Csr, ToDeviceKeepsEverything) {
  const SparseMatrix a = random_sparse(4, 6, 9, 2);
  const SparseMatrix b = a.to(torch::Device(torch::kCPU));
  EXPECT_EQ(b.rows, 4);
  EXPECT_EQ(b.cols, 6);
  EXPECT_TRUE(b.t_row_ptr.defined());
  EXPECT_TRUE(torch::equal(b.to_dense(), a.to_dense()));
}

/// Whether the stored transpose is the matrix's own tensors (not a copy).
bool transpose_shared(const SparseMatrix& m) {
  return m.t_row_ptr.is_same(m.row_ptr) && m.t_col_idx.is_same(m.col_idx) && m.t_values.is_same(m.values) &&
         m.t_row_idx.is_same(m.row_idx);
}

TEST(Csr, ASymmetricMatrixStoresItsTransposeOnce) {
  // A + A^T of a random square matrix: symmetric to the bit (each entry the same sum).
  const at::Tensor half = random_sparse(9, 9, 25, 4).to_dense();
  const at::Tensor dense = half + half.t();
  const at::Tensor nz = dense.nonzero();
  const SparseMatrix a =
      from_coo(9, 9, nz.select(1, 0), nz.select(1, 1), dense.index({nz.select(1, 0), nz.select(1, 1)}));
  EXPECT_TRUE(transpose_shared(a));
  EXPECT_TRUE(transpose_shared(a.to(torch::Device(torch::kCPU))));
  EXPECT_TRUE(torch::equal(a.transpose().to_dense(), dense));
  auto x = torch::randn({9, 4}, kDouble).requires_grad_(true);
  const auto dy = torch::randn({9, 4}, kDouble);
  const auto y = spmm(a, x);
  EXPECT_TRUE(torch::allclose(y, dense.mm(x.detach()), 1e-12, 1e-12));
  y.backward(dy);
  EXPECT_TRUE(torch::allclose(x.grad(), dense.t().mm(dy), 1e-12, 1e-12));
  // The same pattern with one value changed on one side, and a square matrix that is not
  // symmetric, keep a transpose of their own.
  at::Tensor v = dense.index({nz.select(1, 0), nz.select(1, 1)}).clone();
  int64_t off = 0;
  while (nz[off][0].item<int64_t>() == nz[off][1].item<int64_t>()) ++off;
  v[off] += 1.0;
  const SparseMatrix lopsided = from_coo(9, 9, nz.select(1, 0), nz.select(1, 1), v);
  EXPECT_FALSE(transpose_shared(lopsided));
  EXPECT_TRUE(torch::equal(lopsided.transpose().to_dense(), lopsided.to_dense().t()));
  EXPECT_FALSE(transpose_shared(random_sparse(9, 9, 25, 5)));
}

TEST(Csr, IdentityReturnsItsInput) {
  const SparseMatrix i = identity(5);
  EXPECT_TRUE(i.identity);
  EXPECT_EQ(i.nnz(), 5);
  EXPECT_TRUE(torch::equal(i.to_dense(), torch::eye(5)));
  EXPECT_TRUE(i.transpose().identity);
  auto x = torch::randn({5, 3}, torch::TensorOptions().requires_grad(true));
  const auto y = spmm(i, x);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_THROW(spmm(i, torch::randn({4, 3})), c10::Error);
}

TEST(Spmm, ForwardAndGradientEqualDenseInDouble) {
  const SparseMatrix a = random_sparse(30, 20, 90, 3);
  const auto dense = a.to_dense();
  auto x = torch::randn({20, 6}, kDouble).requires_grad_(true);
  auto dy = torch::randn({30, 6}, kDouble);
  const auto y = spmm(a, x);
  EXPECT_EQ(y.scalar_type(), torch::kDouble);
  EXPECT_TRUE(torch::allclose(y, dense.mm(x.detach()), 1e-12, 1e-12));
  y.backward(dy);
  EXPECT_TRUE(torch::allclose(x.grad(), dense.t().mm(dy), 1e-12, 1e-12));
}

TEST(Spmm, GradientWithoutStoredTranspose) {
  SparseMatrix a = random_sparse(12, 8, 30, 10);
  const auto dense = a.to_dense();
  a.t_row_ptr = a.t_col_idx = a.t_values = a.t_row_idx = at::Tensor();
  auto x = torch::randn({8, 3}, kDouble).requires_grad_(true);
  const auto dy = torch::randn({12, 3}, kDouble);
  spmm(a, x).backward(dy);
  EXPECT_TRUE(torch::allclose(x.grad(), dense.t().mm(dy), 1e-12, 1e-12));
}

TEST(Spmm, FloatMatchesDense) {
  torch::manual_seed(4);
  const SparseMatrix a =
      from_coo(50, 50, torch::randint(50, {300}), torch::randint(50, {300}), torch::rand({300}));
  const auto x = torch::randn({50, 8});
  EXPECT_TRUE(torch::allclose(spmm(a, x), a.to_dense().mm(x), 1e-5, 1e-5));
}

TEST(Spmm, VectorInput) {
  const SparseMatrix a = random_sparse(8, 5, 15, 5);
  const auto v = torch::randn({5}, kDouble);
  const auto y = spmm(a, v);
  ASSERT_EQ(y.dim(), 1);
  EXPECT_TRUE(torch::allclose(y, a.to_dense().mv(v), 1e-12, 1e-12));
}

TEST(Spmm, PassesFiniteDifferenceGradientCheck) {
  const SparseMatrix a = random_sparse(9, 7, 25, 6);
  auto x = torch::randn({7, 3}, kDouble).requires_grad_(true);
  const auto w = torch::randn({9, 3}, kDouble);
  // A nonlinear loss, so that the check also exercises the chain rule through spmm.
  auto loss = [&](const at::Tensor& v) { return (torch::tanh(spmm(a, v)) * w).sum(); };
  loss(x).backward();
  const auto analytic = x.grad().clone();
  const double h = 1e-6;
  auto xd = x.detach().clone();
  for (int64_t i = 0; i < xd.size(0); ++i)
    for (int64_t j = 0; j < xd.size(1); ++j) {
      const double old = xd[i][j].item<double>();
      xd[i][j] = old + h;
      const double up = loss(xd).item<double>();
      xd[i][j] = old - h;
      const double down = loss(xd).item<double>();
      xd[i][j] = old;
      EXPECT_NEAR(analytic[i][j].item<double>(), (up - down) / (2 * h), 1e-7)
          << "at (" << i << ", " << j << ")";
    }
}

TEST(Spmm, SecondDerivativeThroughTheBackward) {
  const SparseMatrix a = random_sparse(10, 6, 30, 7);
  const auto dense = a.to_dense();
  auto x = torch::randn({6, 2}, kDouble).requires_grad_(true);
  const auto v = torch::randn({6, 2}, kDouble);
  // g = d/dx sum((A x)^2) = 2 A^T A x; d/dx <g, v> = 2 A^T A v.
  const auto g = torch::autograd::grad({spmm(a, x).pow(2).sum()}, {x}, {}, /*retain_graph=*/true,
                                       /*create_graph=*/true)[0];
  EXPECT_TRUE(torch::allclose(g, 2 * dense.t().mm(dense.mm(x.detach())), 1e-12, 1e-12));
  const auto gg = torch::autograd::grad({(g * v).sum()}, {x})[0];
  EXPECT_TRUE(torch::allclose(gg, 2 * dense.t().mm(dense.mm(v)), 1e-12, 1e-12));
}

TEST(Spmm, EmptyMatrixGivesZeros) {
  const SparseMatrix a = from_coo(4, 3, torch::empty({0}, torch::kLong), torch::empty({0}, torch::kLong),
                                  torch::empty({0}, kDouble));
  EXPECT_EQ(a.nnz(), 0);
  auto x = torch::randn({3, 2}, kDouble).requires_grad_(true);
  const auto y = spmm(a, x);
  EXPECT_TRUE(torch::equal(y, torch::zeros({4, 2}, kDouble)));
  y.sum().backward();
  EXPECT_TRUE(torch::equal(x.grad(), torch::zeros({3, 2}, kDouble)));
}

TEST(Spmm, RejectsMismatchedInputs) {
  const SparseMatrix a = random_sparse(4, 3, 6, 8);
  EXPECT_THROW(spmm(a, torch::randn({3, 2})), c10::Error);              // float x, double A
  EXPECT_THROW(spmm(a, torch::randn({4, 2}, kDouble)), c10::Error);     // wrong row count
  EXPECT_THROW(spmm(a, torch::randn({3, 2, 1}, kDouble)), c10::Error);  // 3-D
}

TEST(Spmm, NonContiguousInput) {
  const SparseMatrix a = random_sparse(6, 5, 12, 9);
  const auto xt = torch::randn({3, 5}, kDouble).t();  // 5 x 3, non-contiguous
  EXPECT_TRUE(torch::allclose(spmm(a, xt), a.to_dense().mm(xt), 1e-12, 1e-12));
}

}  // namespace
}  // namespace symgnn::graph
