#include "models/kernels/class_spmm.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/types.h>

#include <algorithm>
#include <vector>

#include "models/kernels/pair_rows.h"

namespace symgnn::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// One class's CSR arrays.
template <typename T>
struct ClassCsr {
  const int64_t* row_ptr;
  const int64_t* col;
  const T* val;
};

/// Where class k reads and writes: row i of its input at in + k * in_block + j * in_row,
/// its output row i at out + k * out_block + i * out_row; with `sum` every class adds into
/// the one output row.
struct Strides {
  int64_t in_row, in_block, out_row, out_block;
  bool sum;
};

/// Output rows [begin, end): each a sum of gathered input rows scaled by the entries,
/// accumulated in a private row and written once.
template <typename T, int64_t D>
SYMGNN_ALWAYS_INLINE inline void class_rows(const ClassCsr<T>* cls, int64_t classes, const T* in, T* out,
                                            const Strides& s, int64_t begin, int64_t end, int64_t d_runtime) {
  const int64_t d = D > 0 ? D : d_runtime;
  RowSum<T, D> acc(d);
  // Class by class over the rows, each pass streaming one class's arrays and writing one
  // block: row by row over the classes (K interleaved streams, output blocks n d apart)
  // took 5-7 ms instead of 2 ms for the users' prior at 1 M ratings.
  for (int64_t k = 0; k < classes; ++k) {
    const ClassCsr<T>& c = cls[k];
    const T* x = in + k * s.in_block;
    T* o = out + k * s.out_block;
    const int64_t last = c.row_ptr[end];  // prefetched across rows: a class's row holds few entries
    for (int64_t i = begin; i < end; ++i) {
      acc.zero();
      const int64_t p0 = c.row_ptr[i], p1 = c.row_ptr[i + 1];
      for (int64_t p = p0; p < p1; ++p) {
        if (p + kPrefetchAhead < last) prefetch_row(x + c.col[p + kPrefetchAhead] * s.in_row, d, false);
        acc.axpy(c.val[p], x + c.col[p] * s.in_row);
      }
      if (s.sum && k > 0)
        acc.add_to(o + i * s.out_row);
      else
        acc.store(o + i * s.out_row);
    }
  }
}

/// The same product from the other side: `cls` holds the CSR of each H_k^T, and input row
/// j, read once, is added scaled into the output rows its entries name (which the caller
/// zeroed). Used when the input table is the larger one: gathering from it made the users'
/// backward at 10 M ratings (a 45 MB gradient table, above the last-level cache) fetch a
/// row from memory per rating, while the rows scattered into here stay cached.
template <typename T, int64_t D>
SYMGNN_ALWAYS_INLINE inline void class_scatter(const ClassCsr<T>* cls, int64_t classes, const T* in, T* out,
                                               const Strides& s, int64_t begin, int64_t end,
                                               int64_t d_runtime) {
  const int64_t d = D > 0 ? D : d_runtime;
  RowSum<T, D> row(d);
  for (int64_t k = 0; k < classes; ++k) {
    const ClassCsr<T>& c = cls[k];
    const T* x = in + k * s.in_block;
    T* o = out + k * s.out_block;
    const int64_t last = c.row_ptr[end];
    for (int64_t j = begin; j < end; ++j) {
      const int64_t p0 = c.row_ptr[j], p1 = c.row_ptr[j + 1];
      if (p0 == p1) continue;
      row.load(x + j * s.in_row);
      for (int64_t p = p0; p < p1; ++p) {
        if (p + kPrefetchAhead < last) prefetch_row(o + c.col[p + kPrefetchAhead] * s.out_row, d, true);
        row.scaled_add_to(c.val[p], o + c.col[p] * s.out_row);
      }
    }
  }
}

/// The entry points per type and common row length, compiled for each instruction set
/// (SYMGNN_CPU_CLONES, pair_rows.h).
#define SYMGNN_CLASS_ROWS_ENTRY(name, T, D)                                                            \
  SYMGNN_CPU_CLONES void name(const ClassCsr<T>* cls, int64_t classes, const T* in, T* out,            \
                              const Strides& s, int64_t begin, int64_t end, int64_t d, bool scatter) { \
    if (scatter)                                                                                       \
      class_scatter<T, D>(cls, classes, in, out, s, begin, end, d);                                    \
    else                                                                                               \
      class_rows<T, D>(cls, classes, in, out, s, begin, end, d);                                       \
  }
SYMGNN_CLASS_ROWS_ENTRY(class_rows_float16, float, 16)
SYMGNN_CLASS_ROWS_ENTRY(class_rows_float32, float, 32)
SYMGNN_CLASS_ROWS_ENTRY(class_rows_float64, float, 64)
SYMGNN_CLASS_ROWS_ENTRY(class_rows_float, float, 0)
SYMGNN_CLASS_ROWS_ENTRY(class_rows_double, double, 0)
#undef SYMGNN_CLASS_ROWS_ENTRY

template <typename T>
using RowsFn = void (*)(const ClassCsr<T>*, int64_t, const T*, T*, const Strides&, int64_t, int64_t, int64_t,
                        bool);

RowsFn<float> rows_fn(const float*, int64_t d) {
  return pick_row_width<RowsFn<float>>(d, class_rows_float16, class_rows_float32, class_rows_float64,
                                       class_rows_float);
}
RowsFn<double> rows_fn(const double*, int64_t) {
  return class_rows_double;
}

/// Output rows, d and the strides of a layout for classes of n x m.
struct Plan {
  std::vector<int64_t> shape;
  int64_t d;
  Strides s;
};

Plan plan(ClassLayout layout, int64_t classes, int64_t n, int64_t m, const at::Tensor& x) {
  Plan p;
  switch (layout) {
    case ClassLayout::kBlocks:
      TORCH_CHECK(x.dim() == 2 && x.size(0) == m && x.size(1) % classes == 0, "class_spmm: x must be ", m,
                  " x (", classes, " d) for blocks, got ", x.sizes());
      p.d = x.size(1) / classes;
      p.shape = {n, classes * p.d};
      p.s = {classes * p.d, p.d, classes * p.d, p.d, false};
      break;
    case ClassLayout::kBroadcast:
      TORCH_CHECK(x.dim() == 2 && x.size(0) == m, "class_spmm: x must be ", m, " x d to broadcast, got ",
                  x.sizes());
      p.d = x.size(1);
      p.shape = {classes, n, p.d};
      p.s = {p.d, 0, p.d, n * p.d, false};
      break;
    case ClassLayout::kSum:
      TORCH_CHECK(x.dim() == 3 && x.size(0) == classes && x.size(1) == m, "class_spmm: x must be ", classes,
                  " x ", m, " x d to sum, got ", x.sizes());
      p.d = x.size(2);
      p.shape = {n, p.d};
      p.s = {p.d, m * p.d, p.d, 0, true};
      break;
  }
  return p;
}

/// The kernel: CPU, x contiguous and of the classes' value type.
at::Tensor run(const std::vector<graph::SparseMatrix>& h, const at::Tensor& x_in, ClassLayout layout) {
  const auto classes = static_cast<int64_t>(h.size());
  const int64_t n = h[0].rows, m = h[0].cols;
  const at::Tensor x = x_in.contiguous();
  const Plan p = plan(layout, classes, n, m, x);
  int64_t out_numel = 1;
  for (int64_t v : p.shape) out_numel *= v;
  // Gather (each output row from the input rows it names) unless the input is more than
  // twice the output: then scatter from the stored transposes, reading the input once.
  bool scatter = x.numel() > 2 * out_numel;
  for (const auto& hk : h) scatter = scatter && hk.t_row_ptr.defined();
  const int64_t ranges =
      scatter ? std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), m / 1024)) : 1;
  // Scattering, each range of input rows adds into its own table (the first into `out`),
  // summed in range order after: no atomics, the same result whatever thread ran which.
  std::vector<at::Tensor> tables(static_cast<size_t>(ranges));
  for (auto& t : tables)
    t = scatter ? torch::zeros(p.shape, x.options()) : torch::empty(p.shape, x.options());
  at::Tensor out = tables[0];
  if (out.numel() == 0 || x.numel() == 0) return out.zero_();
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "class_spmm", [&] {
    std::vector<ClassCsr<scalar_t>> cls;
    for (const auto& hk : h)
      cls.push_back(
          scatter ? ClassCsr<scalar_t>{hk.t_row_ptr.data_ptr<int64_t>(), hk.t_col_idx.data_ptr<int64_t>(),
                                       hk.t_values.data_ptr<scalar_t>()}
                  : ClassCsr<scalar_t>{hk.row_ptr.data_ptr<int64_t>(), hk.col_idx.data_ptr<int64_t>(),
                                       hk.values.data_ptr<scalar_t>()});
    const RowsFn<scalar_t> fn = rows_fn(static_cast<const scalar_t*>(nullptr), p.d);
    const scalar_t* in = x.data_ptr<scalar_t>();
    if (scatter) {
      const int64_t per = (m + ranges - 1) / ranges;
      at::parallel_for(0, ranges, 1, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r)
          fn(cls.data(), classes, in, tables[static_cast<size_t>(r)].data_ptr<scalar_t>(), p.s, r * per,
             std::min(m, (r + 1) * per), p.d, true);
      });
    } else {
      // Rows in ranges of about 32 k gathered rows, so that a thread's share is worth a task.
      int64_t nnz = 0;
      for (const auto& hk : h) nnz += hk.nnz();
      const int64_t grain = std::max<int64_t>(1, n * 32768 / std::max<int64_t>(1, nnz));
      scalar_t* o = out.data_ptr<scalar_t>();
      at::parallel_for(0, n, grain, [&](int64_t begin, int64_t end) {
        fn(cls.data(), classes, in, o, p.s, begin, end, p.d, false);
      });
    }
  });
  for (size_t r = 1; r < tables.size(); ++r) out.add_(tables[r]);
  return out;
}

ClassLayout transposed(ClassLayout layout) {
  switch (layout) {
    case ClassLayout::kBroadcast: return ClassLayout::kSum;
    case ClassLayout::kSum: return ClassLayout::kBroadcast;
    default: return ClassLayout::kBlocks;
  }
}

constexpr int kSaved = 6;  // row_ptr, col_idx, values and those of the stored transpose

struct ClassSpmmFunction : public torch::autograd::Function<ClassSpmmFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x,
                            const std::vector<graph::SparseMatrix>& h, int64_t layout) {
    std::vector<at::Tensor> saved;
    for (const auto& hk : h)
      for (const at::Tensor& t : {hk.row_ptr, hk.col_idx, hk.values, hk.t_row_ptr, hk.t_col_idx, hk.t_values})
        saved.push_back(t);
    ctx->saved_data["h"] = saved;
    ctx->saved_data["rows"] = h[0].rows;
    ctx->saved_data["cols"] = h[0].cols;
    ctx->saved_data["layout"] = layout;
    return run(h, x, static_cast<ClassLayout>(layout));
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const std::vector<at::Tensor> saved = ctx->saved_data["h"].toTensorVector();
    std::vector<graph::SparseMatrix> ht;
    for (size_t i = 0; i < saved.size(); i += kSaved) {
      graph::SparseMatrix t;  // H_k^T: the stored transpose, with H_k as its own
      t.rows = ctx->saved_data["cols"].toInt();
      t.cols = ctx->saved_data["rows"].toInt();
      t.row_ptr = saved[i + 3], t.col_idx = saved[i + 4], t.values = saved[i + 5];
      t.t_row_ptr = saved[i], t.t_col_idx = saved[i + 1], t.t_values = saved[i + 2];
      ht.push_back(std::move(t));
    }
    const auto layout = static_cast<ClassLayout>(ctx->saved_data["layout"].toInt());
    return {class_spmm(ht, grads[0], transposed(layout)), at::Tensor(), at::Tensor()};
  }
};

void check_classes(const std::vector<graph::SparseMatrix>& h) {
  TORCH_CHECK(!h.empty(), "class_spmm: needs at least one class");
  for (const auto& hk : h)
    TORCH_CHECK(!hk.identity && hk.values.defined() && hk.rows == h[0].rows && hk.cols == h[0].cols,
                "class_spmm: every class must be a stored ", h[0].rows, " x ", h[0].cols, " matrix");
}

}  // namespace

at::Tensor class_spmm_composite(const std::vector<graph::SparseMatrix>& h, const at::Tensor& x,
                                ClassLayout layout) {
  check_classes(h);
  const auto classes = static_cast<int64_t>(h.size());
  const Plan p = plan(layout, classes, h[0].rows, h[0].cols, x);
  std::vector<at::Tensor> parts;
  for (int64_t k = 0; k < classes; ++k) {
    const graph::SparseMatrix& hk = h[static_cast<size_t>(k)];
    switch (layout) {
      case ClassLayout::kBlocks: parts.push_back(graph::spmm(hk, x.narrow(1, k * p.d, p.d))); break;
      case ClassLayout::kBroadcast: parts.push_back(graph::spmm(hk, x)); break;
      case ClassLayout::kSum: parts.push_back(graph::spmm(hk, x[k])); break;
    }
  }
  switch (layout) {
    case ClassLayout::kBlocks: return torch::cat(parts, 1);
    case ClassLayout::kBroadcast: return torch::stack(parts, 0);
    default: {
      at::Tensor sum = parts[0];
      for (size_t k = 1; k < parts.size(); ++k) sum = sum + parts[k];
      return sum;
    }
  }
}

at::Tensor class_spmm(const std::vector<graph::SparseMatrix>& h, const at::Tensor& x, ClassLayout layout) {
  check_classes(h);
  const auto type = x.scalar_type();
  bool fused = x.device().is_cpu() && (type == torch::kFloat || type == torch::kDouble);
  for (const auto& hk : h) fused = fused && hk.values.device().is_cpu() && hk.values.scalar_type() == type;
  if (!fused) return class_spmm_composite(h, x, layout);
  if (!(x.requires_grad() && at::GradMode::is_enabled())) return run(h, x, layout);
  std::vector<graph::SparseMatrix> with_t;  // the backward needs each stored transpose
  for (const auto& hk : h)
    with_t.push_back(
        hk.t_row_ptr.defined() ? hk : graph::from_coo(hk.rows, hk.cols, hk.row_idx, hk.col_idx, hk.values));
  return ClassSpmmFunction::apply(x, with_t, static_cast<int64_t>(layout));
}

}  // namespace symgnn::models
