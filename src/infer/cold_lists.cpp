// The lists of users without training ratings (cold_lists.h).
#include "infer/cold_lists.h"

#include <algorithm>
#include <utility>

namespace symgnn::infer {

ColdLists::ColdLists(const Dataset& ds, double popularity_weight, bool popularity_only, bool validation)
    : lo_(ds.rating_min), hi_(ds.rating_max), weight_(popularity_weight), popularity_only_(popularity_only) {
  const auto n1 = static_cast<size_t>(std::max<int64_t>(ds.users.count, 0));
  const auto n2 = static_cast<size_t>(std::max<int64_t>(ds.items.count, 0));
  count_.assign(n2, 0);
  // Each user's (item, rating), training then validation; a pair in both keeps the first.
  std::vector<std::vector<std::pair<int64_t, float>>> by_user(n1);
  for (const RatingList* list : {&ds.train, &ds.validation}) {
    if (list == &ds.validation && !validation) continue;
    for (size_t e = 0; e < list->size(); ++e) {
      const int64_t u = list->user[e], i = list->item[e];
      if (u < 0 || static_cast<size_t>(u) >= n1 || i < 0 || static_cast<size_t>(i) >= n2) continue;
      by_user[static_cast<size_t>(u)].emplace_back(i, list->value[e]);
    }
  }
  for (auto& rated : by_user) {
    std::stable_sort(rated.begin(), rated.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    rated.erase(std::unique(rated.begin(), rated.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                rated.end());
    for (const auto& [i, r] : rated) {
      rated_item_.push_back(i);
      rated_value_.push_back(r);
      ++count_[static_cast<size_t>(i)];
    }
    rated_ptr_.push_back(static_cast<int64_t>(rated_item_.size()));
  }
  const int64_t most = count_.empty() ? 0 : *std::max_element(count_.begin(), count_.end());
  popularity_.resize(n2);
  for (size_t i = 0; i < n2; ++i)
    popularity_[i] = most > 0 ? static_cast<double>(count_[i]) / static_cast<double>(most) : 0.0;
  // The user graph, both directions, without self-loops, each neighbour once.
  std::vector<std::vector<int64_t>> links(n1);
  const EdgeList& g = ds.users.graph;
  for (size_t e = 0; e < g.size(); ++e) {
    const int64_t s = g.src[e], d = g.dst[e];
    if (s == d || s < 0 || d < 0 || static_cast<size_t>(s) >= n1 || static_cast<size_t>(d) >= n1) continue;
    links[static_cast<size_t>(s)].push_back(d);
    links[static_cast<size_t>(d)].push_back(s);
  }
  const auto to_csr = [](std::vector<std::vector<int64_t>>& lists, Csr& out) {
    for (auto& l : lists) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
      out.idx.insert(out.idx.end(), l.begin(), l.end());
      out.ptr.push_back(static_cast<int64_t>(out.idx.size()));
    }
  };
  to_csr(links, graph_);
  // A directed file's links each way, for the ranker's term (train.ranker_graph_direction).
  const EdgeList& d = ds.users.directed;
  if (d.size() == 0 || ds.users.graph_origin != GraphOrigin::File) return;
  std::vector<std::vector<int64_t>> out(n1), in(n1);
  for (size_t e = 0; e < d.size(); ++e) {
    const int64_t s = d.src[e], t = d.dst[e];
    if (s == t || s < 0 || t < 0 || static_cast<size_t>(s) >= n1 || static_cast<size_t>(t) >= n1) continue;
    out[static_cast<size_t>(s)].push_back(t);
    in[static_cast<size_t>(t)].push_back(s);
  }
  to_csr(out, out_);
  to_csr(in, in_);
}

const ColdLists::Csr& ColdLists::links(LinkDirection direction) const {
  if (direction == LinkDirection::out && has_directions()) return out_;
  if (direction == LinkDirection::in && has_directions()) return in_;
  return graph_;
}

const float* ColdLists::rating_of(int64_t v, int64_t item) const {
  const auto first = rated_item_.begin() + rated_ptr_[static_cast<size_t>(v)];
  const auto last = rated_item_.begin() + rated_ptr_[static_cast<size_t>(v) + 1];
  const auto it = std::lower_bound(first, last, item);
  if (it == last || *it != item) return nullptr;
  return &rated_value_[static_cast<size_t>(it - rated_item_.begin())];
}

std::vector<int64_t> ColdLists::rated_neighbours(int64_t user) const {
  return popularity_only_ ? std::vector<int64_t>{} : linked_raters(user);
}

std::vector<int64_t> ColdLists::neighbours(int64_t user) const {
  if (user < 0 || static_cast<size_t>(user) + 1 >= graph_.ptr.size()) return {};
  return {graph_.idx.begin() + graph_.ptr[static_cast<size_t>(user)],
          graph_.idx.begin() + graph_.ptr[static_cast<size_t>(user) + 1]};
}

std::vector<int64_t> ColdLists::linked_raters(int64_t user, LinkDirection direction) const {
  std::vector<int64_t> out;
  const Csr& g = links(direction);
  if (user < 0 || static_cast<size_t>(user) + 1 >= g.ptr.size()) return out;
  for (int64_t k = g.ptr[static_cast<size_t>(user)]; k < g.ptr[static_cast<size_t>(user) + 1]; ++k) {
    const int64_t v = g.idx[static_cast<size_t>(k)];
    if (has_ratings(v)) out.push_back(v);
  }
  return out;
}

std::vector<float> ColdLists::rows(const std::vector<int64_t>& users) const {
  return rows(users, weight_, popularity_only_);
}

void ColdLists::fill_row(const std::vector<int64_t>& linked, double shrinkage, double popularity_weight,
                         std::vector<double>& sum, float* row) const {
  std::fill(sum.begin(), sum.end(), 0.0);
  for (const int64_t v : linked)
    for (int64_t k = rated_ptr_[static_cast<size_t>(v)]; k < rated_ptr_[static_cast<size_t>(v) + 1]; ++k)
      sum[static_cast<size_t>(rated_item_[static_cast<size_t>(k)])] +=
          share(rated_value_[static_cast<size_t>(k)]);
  const double denominator = static_cast<double>(linked.size()) + shrinkage;
  for (size_t i = 0; i < sum.size(); ++i)
    row[i] = static_cast<float>((sum[i] + popularity_weight * popularity_[i]) / denominator);
}

std::vector<ColdPart> ColdLists::parts_of(const std::vector<int64_t>& linked, int64_t item,
                                          double denominator) const {
  std::vector<ColdPart> out;
  if (item < 0 || static_cast<size_t>(item) >= count_.size()) return out;
  for (const int64_t v : linked)
    if (const float* r = rating_of(v, item)) out.push_back({v, *r, share(*r) / denominator});
  return out;
}

std::vector<float> ColdLists::rows(const std::vector<int64_t>& users, double weight,
                                   bool popularity_only) const {
  const size_t n2 = count_.size();
  std::vector<float> out(users.size() * n2);
  std::vector<double> sum(n2);
  for (size_t r = 0; r < users.size(); ++r)
    fill_row(popularity_only ? std::vector<int64_t>{} : rated_neighbours(users[r]), weight, weight, sum,
             out.data() + r * n2);
  return out;
}

std::vector<float> ColdLists::row_among(std::vector<int64_t> neighbours) const {
  std::vector<float> out(count_.size());
  std::vector<double> sum(count_.size());
  fill_row(popularity_only_ ? std::vector<int64_t>{} : linked_raters_among(std::move(neighbours)), weight_,
           weight_, sum, out.data());
  return out;
}

std::vector<ColdPart> ColdLists::parts(int64_t user, int64_t item) const {
  if (item < 0 || static_cast<size_t>(item) >= count_.size()) return {};
  // The linked raters' parts over (linked + weight), then popularity's share.
  std::vector<ColdPart> out = popularity_only_ ? std::vector<ColdPart>{} : linked_parts(user, item, weight_);
  const double denominator = static_cast<double>(rated_neighbours(user).size()) + weight_;
  out.push_back({-1, static_cast<float>(count_[static_cast<size_t>(item)]),
                 weight_ * popularity_[static_cast<size_t>(item)] / denominator});
  return out;
}

std::vector<float> ColdLists::linked_rows(const std::vector<int64_t>& users, double shrinkage,
                                          LinkDirection direction) const {
  const size_t n2 = count_.size();
  std::vector<float> out;
  out.reserve(users.size() * n2);
  for (const int64_t u : users) {
    const std::vector<float> row = linked_row(linked_raters(u, direction), shrinkage);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

std::vector<float> ColdLists::linked_row(std::vector<int64_t> neighbours, double shrinkage) const {
  const size_t n2 = count_.size();
  std::vector<float> row(n2, 0.0f);
  const std::vector<int64_t> linked = linked_raters_among(std::move(neighbours));
  if (linked.empty()) return row;  // zeros (not 0 / 0 at shrinkage 0)
  std::vector<double> sum(n2);
  fill_row(linked, shrinkage, 0.0, sum, row.data());
  return row;
}

std::vector<int64_t> ColdLists::linked_raters_among(std::vector<int64_t> neighbours) const {
  std::sort(neighbours.begin(), neighbours.end());
  neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  std::vector<int64_t> linked;
  for (const int64_t v : neighbours)
    if (v >= 0 && static_cast<size_t>(v) + 1 < rated_ptr_.size() && has_ratings(v)) linked.push_back(v);
  return linked;
}

std::vector<ColdPart> ColdLists::linked_parts(int64_t user, int64_t item, double shrinkage,
                                              LinkDirection direction) const {
  const std::vector<int64_t> linked = linked_raters(user, direction);
  return parts_of(linked, item, static_cast<double>(linked.size()) + shrinkage);
}

std::vector<ColdPart> ColdLists::linked_parts_among(std::vector<int64_t> neighbours, int64_t item) const {
  return parts_of(linked_raters_among(std::move(neighbours)), item, 1.0);
}

std::string ColdLists::ranked_by(int64_t user) const {
  return ranked_by_count(popularity_only_ ? 0 : rated_neighbours(user).size());
}

std::string ColdLists::ranked_by_among(std::vector<int64_t> neighbours) const {
  return ranked_by_count(popularity_only_ ? 0 : linked_raters_among(std::move(neighbours)).size());
}

std::string ColdLists::ranked_by_count(size_t linked) const {
  if (popularity_only_) return "popularity (no rating; train.cold_lists)";
  if (linked == 0) return "popularity (no rating, and nobody linked in the user graph who rated)";
  return "the " + std::to_string(linked) + (linked == 1 ? " person" : " people") +
         " linked in the user graph who rated, shrunk toward popularity";
}

}  // namespace symgnn::infer
