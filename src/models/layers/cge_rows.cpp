// The CGE stack recomputed for the rows a change reaches (CGEImpl::fold_rows and retrace,
// cge.h): a layer's row i reads row i and the rows At gathers into it, so when rows C of
// U^(l) change, only C and the rows that gather from C change in U^(l+1); when At's row i
// changes (a graph edit), row i changes in every layer. The unchanged rows' products y^(l)
// come from the trace of the full forward; the changed ones are computed again.
#include <torch/types.h>

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "models/layers/activation.h"
#include "models/layers/cge.h"

namespace symgnn::models {

namespace {

/// The entries of row `r` of At as (column, value) pairs, through `each`.
template <typename Each>
void for_row_entries(const CgeTrace& t, const AppendedNode* appended, int64_t r, Each each) {
  if (appended && r == appended->index) {
    if (appended->identity) return each(r, 1.0f);
    for (size_t e = 0; e < appended->cols.size(); ++e) each(appended->cols[e], appended->vals[e]);
    return;
  }
  if (t.identity) return each(r, 1.0f);
  const int64_t* ptr = t.row_ptr.data_ptr<int64_t>();
  const int64_t* col = t.col_idx.data_ptr<int64_t>();
  const float* val = t.values.data_ptr<float>();
  for (int64_t e = ptr[r]; e < ptr[r + 1]; ++e) each(col[e], val[e]);
}

/// The rows that gather from row `c` (column c of At), through `each`; an appended node's
/// column is empty (no row names it) but for the identity's diagonal.
template <typename Each>
void for_column_rows(const CgeTrace& t, const AppendedNode* appended, int64_t c, Each each) {
  if (appended && c == appended->index) {
    if (appended->identity) each(c);
    return;
  }
  if (t.identity) return each(c);
  const int64_t* ptr = t.t_row_ptr.data_ptr<int64_t>();
  const int64_t* col = t.t_col_idx.data_ptr<int64_t>();
  for (int64_t e = ptr[c]; e < ptr[c + 1]; ++e) each(col[e]);
}

at::Tensor long_tensor_of(const std::vector<int64_t>& v, const at::Device& device) {
  return torch::tensor(at::ArrayRef<int64_t>(v), torch::kLong).to(device);
}

void sort_unique(std::vector<int64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

NodeRows CGEImpl::fold_rows(const CgeTrace& t, const NodeRows& changed, const AppendedNode* appended,
                            const std::vector<int64_t>* wanted) const {
  const auto layers = static_cast<int64_t>(w_.size());
  TORCH_CHECK(static_cast<int64_t>(t.products.size()) == layers, "CGE fold: the trace has ",
              t.products.size(), " layers, the module ", layers);
  // needed[l]: the rows of U^(l) that U^(L)'s wanted rows read (all where none are named).
  std::vector<std::vector<int64_t>> needed(static_cast<size_t>(layers) + 1);
  if (wanted) {
    needed[static_cast<size_t>(layers)] = *wanted;
    for (int64_t l = layers; l > 1; --l) {
      std::vector<int64_t> rows = needed[static_cast<size_t>(l)];
      for (const int64_t r : needed[static_cast<size_t>(l)])
        for_row_entries(t, appended, r, [&](int64_t c, float) { rows.push_back(c); });
      sort_unique(rows);
      needed[static_cast<size_t>(l) - 1] = std::move(rows);
    }
  }
  const at::Tensor& s_all = t.self_weight;
  const at::Device device = s_all.device();
  NodeRows cur = changed;
  if (t.identity && (!appended || appended->identity)) {
    // At = I: each row reads itself alone, so the changed rows are the rows that change.
    std::vector<int64_t> trained_at, trained;
    for (size_t k = 0; k < cur.index.size(); ++k)
      if (!appended || cur.index[k] != appended->index)
        trained_at.push_back(static_cast<int64_t>(k)), trained.push_back(cur.index[k]);
    at::Tensor s = torch::full({static_cast<int64_t>(cur.index.size()), 1}, 0.5, cur.values.options());
    if (!trained.empty())
      s.index_copy_(0, long_tensor_of(trained_at, device),
                    s_all.index_select(0, long_tensor_of(trained, device)).unsqueeze(1).to(s.options()));
    for (int64_t l = 0; l < layers; ++l) {
      const at::Tensor y = cur.values.mm(w_[static_cast<size_t>(l)]);
      at::Tensor z = s * y + (1 - s) * y;
      if (!b_.empty()) z = z + b_[static_cast<size_t>(l)];
      cur.values = activate(z, activation_);
    }
    if (!wanted) return cur;
    NodeRows kept;  // the wanted rows among the changed ones
    std::vector<int64_t> at_rows;
    for (size_t k = 0; k < cur.index.size(); ++k)
      if (std::binary_search(wanted->begin(), wanted->end(), cur.index[k]))
        kept.index.push_back(cur.index[k]), at_rows.push_back(static_cast<int64_t>(k));
    kept.values = cur.values.index_select(0, long_tensor_of(at_rows, device));
    return kept;
  }
  for (int64_t l = 0; l < layers; ++l) {
    const at::Tensor& y_all = t.products[static_cast<size_t>(l)];
    const at::Tensor y_new = cur.values.mm(w_[static_cast<size_t>(l)]);
    std::unordered_map<int64_t, int64_t> pos;  // changed row -> its row of y_new
    for (size_t k = 0; k < cur.index.size(); ++k) pos.emplace(cur.index[k], static_cast<int64_t>(k));
    // The rows of U^(l+1) that read a changed row, where needed.
    std::vector<int64_t> rows;
    for (const int64_t c : cur.index) for_column_rows(t, appended, c, [&](int64_t r) { rows.push_back(r); });
    rows.insert(rows.end(), cur.index.begin(), cur.index.end());
    sort_unique(rows);
    if (wanted) {
      const std::vector<int64_t>& keep = needed[static_cast<size_t>(l) + 1];
      std::vector<int64_t> both;
      std::set_intersection(rows.begin(), rows.end(), keep.begin(), keep.end(), std::back_inserter(both));
      rows = std::move(both);
    }
    // Their entries, split by where the product of the column comes from: the trace or y_new.
    std::vector<int64_t> old_row, old_col, new_row, new_col;
    std::vector<float> old_val, new_val;
    std::vector<int64_t> self_old_at, self_old, self_new_at, self_new;  // each row's own product
    for (size_t k = 0; k < rows.size(); ++k) {
      const int64_t r = rows[k];
      const auto at = static_cast<int64_t>(k);
      for_row_entries(t, appended, r, [&](int64_t c, float v) {
        if (const auto it = pos.find(c); it != pos.end()) {
          new_row.push_back(at), new_col.push_back(it->second), new_val.push_back(v);
        } else {
          old_row.push_back(at), old_col.push_back(c), old_val.push_back(v);
        }
      });
      if (const auto it = pos.find(r); it != pos.end()) {
        self_new_at.push_back(at), self_new.push_back(it->second);
      } else {
        self_old_at.push_back(at), self_old.push_back(r);
      }
    }
    const int64_t m = static_cast<int64_t>(rows.size()), d = y_new.size(1);
    const auto opts = y_new.options();
    at::Tensor gathered = torch::zeros({m, d}, opts), own = torch::zeros({m, d}, opts);
    const auto add = [&](const std::vector<int64_t>& at_row, const std::vector<int64_t>& from,
                         const std::vector<float>& val, const at::Tensor& source) {
      if (at_row.empty()) return;
      const at::Tensor v = torch::tensor(at::ArrayRef<float>(val), torch::kFloat).to(opts).unsqueeze(1);
      gathered.index_add_(0, long_tensor_of(at_row, device),
                          source.index_select(0, long_tensor_of(from, device)) * v);
    };
    add(old_row, old_col, old_val, y_all);
    add(new_row, new_col, new_val, y_new);
    if (!self_old.empty())
      own.index_copy_(0, long_tensor_of(self_old_at, device),
                      y_all.index_select(0, long_tensor_of(self_old, device)));
    if (!self_new.empty())
      own.index_copy_(0, long_tensor_of(self_new_at, device),
                      y_new.index_select(0, long_tensor_of(self_new, device)));
    // s of each row: the trained gate, or sigmoid(0) for the appended node (a zero logit).
    std::vector<int64_t> trained_at, trained;
    for (size_t k = 0; k < rows.size(); ++k)
      if (!appended || rows[k] != appended->index)
        trained_at.push_back(static_cast<int64_t>(k)), trained.push_back(rows[k]);
    at::Tensor s = torch::full({m, 1}, 0.5, opts);
    if (!trained.empty())
      s.index_copy_(0, long_tensor_of(trained_at, device),
                    s_all.index_select(0, long_tensor_of(trained, device)).unsqueeze(1).to(opts));
    at::Tensor z = s * own + (1 - s) * gathered;
    if (!b_.empty()) z = z + b_[static_cast<size_t>(l)];
    cur.index = std::move(rows);
    cur.values = activate(z, activation_);
  }
  return cur;
}

namespace {

/// The rows whose entries differ between two traces' At (CSR on the CPU), ascending.
std::vector<int64_t> differing_rows(const CgeTrace& a, const CgeTrace& b, int64_t n) {
  std::vector<int64_t> rows;
  if (a.identity && b.identity) return rows;
  if (a.identity != b.identity) {
    for (int64_t r = 0; r < n; ++r) rows.push_back(r);
    return rows;
  }
  const int64_t *pa = a.row_ptr.data_ptr<int64_t>(), *pb = b.row_ptr.data_ptr<int64_t>();
  const int64_t *ca = a.col_idx.data_ptr<int64_t>(), *cb = b.col_idx.data_ptr<int64_t>();
  const float *va = a.values.data_ptr<float>(), *vb = b.values.data_ptr<float>();
  for (int64_t r = 0; r < n; ++r) {
    bool same = pa[r + 1] - pa[r] == pb[r + 1] - pb[r];
    for (int64_t k = 0; same && k < pa[r + 1] - pa[r]; ++k)
      same = ca[pa[r] + k] == cb[pb[r] + k] && va[pa[r] + k] == vb[pb[r] + k];
    if (!same) rows.push_back(r);
  }
  return rows;
}

}  // namespace

CgeTrace CGEImpl::retrace(const CgeTrace& before, NodeRows& changed) {
  const auto layers = static_cast<int64_t>(w_.size());
  TORCH_CHECK(static_cast<int64_t>(before.products.size()) == layers, "CGE retrace: the trace has ",
              before.products.size(), " layers, the module ", layers);
  torch::NoGradGuard no_grad;
  CgeTrace t = graph_trace();
  const std::vector<int64_t> seeds = differing_rows(t, before, at_.rows);
  changed = NodeRows{};
  if (seeds.empty()) {
    t.products = before.products;
    return t;
  }
  const at::Device device = t.self_weight.device();
  NodeRows cur;  // the rows of U^(l) that changed
  for (int64_t l = 0; l < layers; ++l) {
    at::Tensor y = before.products[static_cast<size_t>(l)];
    if (!cur.index.empty()) {
      y = y.clone();
      y.index_copy_(0, long_tensor_of(cur.index, device), cur.values.mm(w_[static_cast<size_t>(l)]));
    }
    t.products.push_back(y);
    // The rows of U^(l+1) that change: At's changed rows, the changed rows, those reading them.
    std::vector<int64_t> rows = seeds;
    rows.insert(rows.end(), cur.index.begin(), cur.index.end());
    for (const int64_t c : cur.index) for_column_rows(t, nullptr, c, [&](int64_t r) { rows.push_back(r); });
    sort_unique(rows);
    std::vector<int64_t> at_row, col;
    std::vector<float> val;
    for (size_t k = 0; k < rows.size(); ++k)
      for_row_entries(t, nullptr, rows[k], [&](int64_t c, float v) {
        at_row.push_back(static_cast<int64_t>(k)), col.push_back(c), val.push_back(v);
      });
    const at::Tensor index = long_tensor_of(rows, device);
    const auto opts = y.options();
    at::Tensor gathered = torch::zeros({static_cast<int64_t>(rows.size()), y.size(1)}, opts);
    if (!at_row.empty()) {
      const at::Tensor v = torch::tensor(at::ArrayRef<float>(val), torch::kFloat).to(opts).unsqueeze(1);
      gathered.index_add_(0, long_tensor_of(at_row, device),
                          y.index_select(0, long_tensor_of(col, device)) * v);
    }
    const at::Tensor s = t.self_weight.index_select(0, index).unsqueeze(1).to(opts);
    at::Tensor z = s * y.index_select(0, index) + (1 - s) * gathered;
    if (!b_.empty()) z = z + b_[static_cast<size_t>(l)];
    cur.index = std::move(rows);
    cur.values = activate(z, activation_);
  }
  changed = std::move(cur);
  return t;
}

}  // namespace symgnn::models
