#include "models/kernels/pair_bilinear.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/types.h>

#include <algorithm>

#include "models/kernels/pair_rows.h"

namespace symgnn::models {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <typename T>
void forward_kernel(const T* p, const T* v, const int64_t* users, const int64_t* items, T* s, int64_t k,
                    int64_t nb, int64_t d) {
  at::parallel_for(0, k, kPairGrain, [&](int64_t begin, int64_t end) {
    for (int64_t e = begin; e < end; ++e) {
      if (e + kPrefetchAhead < end) {
        prefetch_row(p + users[e + kPrefetchAhead] * nb * d, nb * d, false);
        prefetch_row(v + items[e + kPrefetchAhead] * d, d, false);
      }
      const T* pe = p + users[e] * nb * d;
      const T* ve = v + items[e] * d;
      for (int64_t b = 0; b < nb; ++b) {
        s[e * nb + b] = row_dot(pe + b * d, ve, d);
      }
    }
  });
}

/// dP[u_e, b, :] += g[e, b] V[i_e, :] and dV[i_e, :] += sum_b g[e, b] P[u_e, b, :] over the
/// pairs e of [begin, end), into one chunk's private dp, dv.
template <typename T>
void backward_chunk(const T* p, const T* v, const int64_t* users, const int64_t* items, const T* g, T* dp,
                    T* dv, int64_t begin, int64_t end, int64_t nb, int64_t d) {
  for (int64_t e = begin; e < end; ++e) {
    const int64_t u = users[e], i = items[e];
    if (e + kPrefetchAhead < end) {
      const int64_t ua = users[e + kPrefetchAhead], ia = items[e + kPrefetchAhead];
      prefetch_row(p + ua * nb * d, nb * d, false);
      prefetch_row(v + ia * d, d, false);
      prefetch_row(dp + ua * nb * d, nb * d, true);
      prefetch_row(dv + ia * d, d, true);
    }
    const T* pe = p + u * nb * d;
    const T* ve = v + i * d;
    T* dpe = dp + u * nb * d;
    T* dve = dv + i * d;
    for (int64_t b = 0; b < nb; ++b) {
      const T gb = g[e * nb + b];
      if (gb == T(0)) continue;
      const T* pb = pe + b * d;
      T* dpb = dpe + b * d;
      for (int64_t j = 0; j < d; ++j) {
        dpb[j] += gb * ve[j];
        dve[j] += gb * pb[j];
      }
    }
  }
}

struct PairBilinearFunction : public torch::autograd::Function<PairBilinearFunction> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& p, const at::Tensor& v,
                            const at::Tensor& users, const at::Tensor& items) {
    const at::Tensor pc = p.contiguous(), vc = v.contiguous();
    const at::Tensor uc = users.contiguous(), ic = items.contiguous();
    ctx->save_for_backward({pc, vc, uc, ic});
    const int64_t k = uc.size(0), nb = pc.size(1), d = pc.size(2);
    at::Tensor s = torch::empty({k, nb}, pc.options());
    AT_DISPATCH_FLOATING_TYPES(pc.scalar_type(), "pair_bilinear_forward", [&] {
      forward_kernel<scalar_t>(pc.data_ptr<scalar_t>(), vc.data_ptr<scalar_t>(), uc.data_ptr<int64_t>(),
                               ic.data_ptr<int64_t>(), s.data_ptr<scalar_t>(), k, nb, d);
    });
    return s;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &p = saved[0], &v = saved[1], &users = saved[2], &items = saved[3];
    const at::Tensor g = grads[0].contiguous();
    const int64_t k = users.size(0), nb = p.size(1), d = p.size(2);
    const int64_t chunks =
        std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), (k + kPairGrain - 1) / kPairGrain));
    at::Tensor dp = torch::zeros({chunks, p.size(0), nb, d}, p.options());
    at::Tensor dv = torch::zeros({chunks, v.size(0), d}, v.options());
    AT_DISPATCH_FLOATING_TYPES(p.scalar_type(), "pair_bilinear_backward", [&] {
      const int64_t per = (k + chunks - 1) / chunks;
      at::parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c)
          backward_chunk<scalar_t>(p.data_ptr<scalar_t>(), v.data_ptr<scalar_t>(), users.data_ptr<int64_t>(),
                                   items.data_ptr<int64_t>(), g.data_ptr<scalar_t>(),
                                   dp[c].data_ptr<scalar_t>(), dv[c].data_ptr<scalar_t>(), c * per,
                                   std::min(k, (c + 1) * per), nb, d);
      });
    });
    // Summed in chunk order: the same result whichever thread ran which chunk.
    return {chunks == 1 ? dp[0] : dp.sum(0), chunks == 1 ? dv[0] : dv.sum(0), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor pair_bilinear_composite(const at::Tensor& p, const at::Tensor& v, const at::Tensor& users,
                                   const at::Tensor& items) {
  return (p.index_select(0, users) * v.index_select(0, items).unsqueeze(1)).sum(2);
}

at::Tensor pair_bilinear(const at::Tensor& p, const at::Tensor& v, const at::Tensor& users,
                         const at::Tensor& items) {
  TORCH_CHECK(p.dim() == 3 && v.dim() == 2 && p.size(2) == v.size(1), "pair_bilinear: p must be [n1, nb, d] ",
              "and v [n2, d], got ", p.sizes(), " and ", v.sizes());
  TORCH_CHECK(users.dim() == 1 && users.sizes() == items.sizes() && users.scalar_type() == torch::kLong &&
                  items.scalar_type() == torch::kLong,
              "pair_bilinear: users and items must be int64 [K]");
  TORCH_CHECK(p.scalar_type() == v.scalar_type(), "pair_bilinear: p and v differ in dtype");
  if (!p.device().is_cpu() || !v.device().is_cpu() || !users.device().is_cpu() || !items.device().is_cpu() ||
      !at::isFloatingType(p.scalar_type()) || p.scalar_type() == torch::kHalf ||
      p.scalar_type() == torch::kBFloat16)
    return pair_bilinear_composite(p, v, users, items);
  check_pair_ids(users, p.size(0), "pair_bilinear", "user");
  check_pair_ids(items, v.size(0), "pair_bilinear", "item");
  return PairBilinearFunction::apply(p, v, users, items);
}

}  // namespace symgnn::models
