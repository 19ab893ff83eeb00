#include "models/kernels/dot_mse.h"

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

/// Where one range of pairs writes: its predictions, its loss, and (when training) its
/// gradient tables.
template <typename T>
struct RangeOut {
  T* pred = nullptr;
  T *du1 = nullptr, *du2 = nullptr, *db1 = nullptr, *db2 = nullptr;
  double loss = 0;
};

/// One pass over the pairs [begin, end): prediction, squared error, and the gradients.
/// D > 0 is the row length known at compile time (the loops then unroll into a few vector
/// instructions with no loop control: 1.9x faster at d = 32); D = 0 takes it from d.
template <typename T, int64_t D>
SYMGNN_ALWAYS_INLINE inline void dot_mse_range(const T* u1, const T* u2, const T* b1, const T* b2,
                                               const int64_t* users, const int64_t* items, const T* target,
                                               int64_t begin, int64_t end, int64_t d_runtime, double mean,
                                               double std, double weight, RangeOut<T>& out) {
  const int64_t d = D > 0 ? D : d_runtime;
  const bool bias = b1 != nullptr;
  const T scale = bias ? static_cast<T>(std) : T(1), offset = static_cast<T>(mean);
  const T gscale = static_cast<T>(2 * weight) * scale;  // dLoss / d(dot) per unit of error
  double loss = 0;
  // The gradient of the current user's row (and bias) is summed here while consecutive
  // pairs share the user, as they do grouped by user, and added to du1 when it changes:
  // one read-modify-write of the row per run instead of one per pair.
  RowSum<T, D> gu(d);
  T gu_bias = 0;
  int64_t run_user = -1;
  auto flush = [&]() SYMGNN_ALWAYS_INLINE {
    if (run_user < 0) return;
    T* gx = out.du1 + run_user * d;
    gu.add_to(gx);
    gu.zero();
    if (bias) out.db1[run_user] += gu_bias;
    gu_bias = 0;
  };
  for (int64_t e = begin; e < end; ++e) {
    const int64_t u = users[e], i = items[e];
    if (e + kPrefetchAhead < end) {
      const int64_t ua = users[e + kPrefetchAhead], ia = items[e + kPrefetchAhead];
      prefetch_row(u1 + ua * d, d, false);
      prefetch_row(u2 + ia * d, d, false);
      if (out.du1) {
        prefetch_row(out.du1 + ua * d, d, true);
        prefetch_row(out.du2 + ia * d, d, true);
      }
    }
    const T* __restrict x = u1 + u * d;
    const T* __restrict y = u2 + i * d;
    const T dot = row_dot(x, y, d);
    const T p = bias ? offset + scale * (dot + b1[u] + b2[i]) : dot;
    if (out.pred) out.pred[e] = p;
    const T r = p - target[e];
    loss += static_cast<double>(r) * static_cast<double>(r);
    if (!out.du1) continue;
    const T g = gscale * r;
    if (u != run_user) {
      flush();
      run_user = u;
    }
    T* __restrict gy = out.du2 + i * d;
    gu.axpy(g, y);
    row_axpy(g, x, gy, d);
    if (bias) {
      gu_bias += g;
      out.db2[i] += g;
    }
  }
  if (out.du1) flush();
  out.loss = loss;
}

/// The entry points: dot_mse_range for each type and common row length, compiled for
/// each instruction set (SYMGNN_CPU_CLONES, pair_rows.h) and picked for the machine at load.
#define SYMGNN_DOT_MSE_ENTRY(name, T, D)                                                                    \
  SYMGNN_CPU_CLONES void name(const T* u1, const T* u2, const T* b1, const T* b2, const int64_t* users,     \
                              const int64_t* items, const T* target, int64_t begin, int64_t end, int64_t d, \
                              double mean, double std, double weight, RangeOut<T>& out) {                   \
    dot_mse_range<T, D>(u1, u2, b1, b2, users, items, target, begin, end, d, mean, std, weight, out);       \
  }
SYMGNN_DOT_MSE_ENTRY(dot_mse_float16, float, 16)
SYMGNN_DOT_MSE_ENTRY(dot_mse_float32, float, 32)
SYMGNN_DOT_MSE_ENTRY(dot_mse_float64, float, 64)
SYMGNN_DOT_MSE_ENTRY(dot_mse_float, float, 0)
SYMGNN_DOT_MSE_ENTRY(dot_mse_double, double, 0)
#undef SYMGNN_DOT_MSE_ENTRY

template <typename T>
using RangeFn = void (*)(const T*, const T*, const T*, const T*, const int64_t*, const int64_t*, const T*,
                         int64_t, int64_t, int64_t, double, double, double, RangeOut<T>&);

/// The entry point for float rows of length d: the widths the presets and docs use have
/// their own, others take the general loop.
RangeFn<float> range_fn(const float*, int64_t d) {
  return pick_row_width<RangeFn<float>>(d, dot_mse_float16, dot_mse_float32, dot_mse_float64, dot_mse_float);
}
RangeFn<double> range_fn(const double*, int64_t) {
  return dot_mse_double;
}  // tests, gradient checks

struct DotMseResult {
  at::Tensor loss, pred, du1, du2, db1, db2;  // pred: [0] unless asked; gradients: when asked
};

DotMseResult run(const DotDecoder& dec, const at::Tensor& users, const at::Tensor& items,
                 const at::Tensor& target, double weight, bool want_pred, bool want_grads) {
  const at::Tensor u1 = dec.u1.contiguous(), u2 = dec.u2.contiguous();
  const bool bias = dec.b1.defined();
  const at::Tensor b1 = bias ? dec.b1.contiguous() : at::Tensor(),
                   b2 = bias ? dec.b2.contiguous() : at::Tensor();
  const at::Tensor uc = users.contiguous(), ic = items.contiguous(),
                   tc = target.to(u1.scalar_type()).contiguous();
  const int64_t k = uc.size(0), d = u1.size(1);
  DotMseResult r;
  r.pred = torch::empty({want_pred ? k : 0}, u1.options());
  // Range 0 writes into the returned tables, the others into private ones summed after.
  const int64_t ranges =
      want_grads
          ? std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), (k + kPairGrain - 1) / kPairGrain))
          : 1;
  std::vector<at::Tensor> du1(ranges), du2(ranges), db1(ranges), db2(ranges);
  if (want_grads)
    for (int64_t c = 0; c < ranges; ++c) {
      du1[c] = torch::zeros_like(u1);
      du2[c] = torch::zeros_like(u2);
      if (bias) {
        db1[c] = torch::zeros_like(b1);
        db2[c] = torch::zeros_like(b2);
      }
    }
  std::vector<double> losses(static_cast<size_t>(ranges), 0.0);
  AT_DISPATCH_FLOATING_TYPES(u1.scalar_type(), "dot_mse", [&] {
    const int64_t per = (k + ranges - 1) / ranges;
    auto one_range = [&](int64_t c) {
      RangeOut<scalar_t> out;
      out.pred = want_pred ? r.pred.data_ptr<scalar_t>() : nullptr;
      if (want_grads) {
        out.du1 = du1[c].data_ptr<scalar_t>();
        out.du2 = du2[c].data_ptr<scalar_t>();
        if (bias) {
          out.db1 = db1[c].data_ptr<scalar_t>();
          out.db2 = db2[c].data_ptr<scalar_t>();
        }
      }
      range_fn(static_cast<const scalar_t*>(nullptr), d)(
          u1.data_ptr<scalar_t>(), u2.data_ptr<scalar_t>(), bias ? b1.data_ptr<scalar_t>() : nullptr,
          bias ? b2.data_ptr<scalar_t>() : nullptr, uc.data_ptr<int64_t>(), ic.data_ptr<int64_t>(),
          tc.data_ptr<scalar_t>(), c * per, std::min(k, (c + 1) * per), d, dec.mean, dec.std, weight, out);
      losses[static_cast<size_t>(c)] = out.loss;
    };
    if (ranges == 1) {
      one_range(0);
    } else {
      at::parallel_for(0, ranges, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) one_range(c);
      });
    }
  });
  double total = 0;
  for (double l : losses) total += l;  // in range order: the same whichever thread ran which
  r.loss = torch::full({}, weight * total, u1.options());
  if (want_grads) {
    for (int64_t c = 1; c < ranges; ++c) {
      du1[0].add_(du1[c]);
      du2[0].add_(du2[c]);
      if (bias) {
        db1[0].add_(db1[c]);
        db2[0].add_(db2[c]);
      }
    }
    r.du1 = du1[0], r.du2 = du2[0], r.db1 = db1[0], r.db2 = db2[0];
  }
  return r;
}

struct DotMseFunction : public torch::autograd::Function<DotMseFunction> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& u1, const at::Tensor& u2,
                               const at::Tensor& b1, const at::Tensor& b2, const at::Tensor& users,
                               const at::Tensor& items, const at::Tensor& target, double mean, double std,
                               double weight, bool want_pred) {
    // Without biases b1, b2 are empty stand-ins: autograd takes no undefined inputs.
    const bool bias = b1.numel() > 0;
    DotMseResult r = run(DotDecoder{u1, u2, bias ? b1 : at::Tensor(), bias ? b2 : at::Tensor(), mean, std},
                         users, items, target, weight, want_pred, true);
    ctx->saved_data["du1"] = r.du1;
    ctx->saved_data["du2"] = r.du2;
    ctx->saved_data["bias"] = bias;
    if (bias) {
      ctx->saved_data["db1"] = r.db1;
      ctx->saved_data["db2"] = r.db2;
    }
    ctx->mark_non_differentiable({r.pred});
    return {r.loss, r.pred};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor& g = grads[0];  // the loss is a scalar: every gradient scales by it
    const bool bias = ctx->saved_data["bias"].toBool();
    return {ctx->saved_data["du1"].toTensor() * g,
            ctx->saved_data["du2"].toTensor() * g,
            bias ? ctx->saved_data["db1"].toTensor() * g : at::Tensor(),
            bias ? ctx->saved_data["db2"].toTensor() * g : at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor(),
            at::Tensor()};
  }
};

}  // namespace

at::Tensor dot_mse_composite(const DotDecoder& dec, const at::Tensor& users, const at::Tensor& items,
                             const at::Tensor& target, double weight, at::Tensor* pred) {
  at::Tensor p = (dec.u1.index_select(0, users) * dec.u2.index_select(0, items)).sum(1);
  if (dec.b1.defined())
    p = (p + dec.b1.index_select(0, users) + dec.b2.index_select(0, items)) * dec.std + dec.mean;
  if (pred) *pred = p.detach();
  return (p - target).pow(2).sum() * weight;
}

at::Tensor dot_mse(const DotDecoder& dec, const at::Tensor& users, const at::Tensor& items,
                   const at::Tensor& target, double weight, at::Tensor* pred) {
  TORCH_CHECK(dec.u1.dim() == 2 && dec.u2.dim() == 2 && dec.u1.size(1) == dec.u2.size(1),
              "dot_mse: u1 and u2 must be [n1, d] and [n2, d], got ", dec.u1.sizes(), " and ",
              dec.u2.sizes());
  TORCH_CHECK(users.dim() == 1 && users.sizes() == items.sizes() && users.sizes() == target.sizes() &&
                  users.scalar_type() == torch::kLong && items.scalar_type() == torch::kLong,
              "dot_mse: users and items must be int64 [K] and target [K]");
  TORCH_CHECK(dec.b1.defined() == dec.b2.defined(), "dot_mse: b1 and b2 go together");
  const auto type = dec.u1.scalar_type();
  const bool fused =
      dec.u1.device().is_cpu() && dec.u2.device().is_cpu() && users.device().is_cpu() &&
      (type == torch::kFloat || type == torch::kDouble) && dec.u2.scalar_type() == type &&
      (!dec.b1.defined() ||
       (dec.b1.device().is_cpu() && dec.b1.scalar_type() == type && dec.b2.scalar_type() == type &&
        dec.b1.size(0) == dec.u1.size(0) && dec.b2.size(0) == dec.u2.size(0)));
  if (!fused) return dot_mse_composite(dec, users, items, target, weight, pred);
  check_pair_ids(users, dec.u1.size(0), "dot_mse", "user");
  check_pair_ids(items, dec.u2.size(0), "dot_mse", "item");
  const bool grads = at::GradMode::is_enabled() &&
                     (dec.u1.requires_grad() || dec.u2.requires_grad() ||
                      (dec.b1.defined() && (dec.b1.requires_grad() || dec.b2.requires_grad())));
  if (!grads) {
    DotMseResult r = run(dec, users, items, target, weight, pred != nullptr, false);
    if (pred) *pred = r.pred;
    return r.loss;
  }
  const at::Tensor none = torch::empty({0}, dec.u1.options());
  const variable_list out = DotMseFunction::apply(dec.u1, dec.u2, dec.b1.defined() ? dec.b1 : none,
                                                  dec.b2.defined() ? dec.b2 : none, users, items, target,
                                                  dec.mean, dec.std, weight, pred != nullptr);
  if (pred) *pred = out[1];
  return out[0];
}

}  // namespace symgnn::models
