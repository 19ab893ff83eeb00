// The helpers of fitted.h.
#include "fit/fitted.h"

#include <torch/types.h>

#include "fit/evaluation_json.h"
#include "symgnn/recommend.h"
#include "util/memory_check.h"

namespace symgnn::fitting {

void say(const FitOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

/// The ratings of a list as a float tensor: the truth the epoch metrics compare with.
at::Tensor truth(const RatingList& r) {
  return torch::tensor(r.value, torch::kFloat);
}

std::vector<double> values(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kCPU).to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void add_ranking(RunMetrics& m, const std::vector<std::shared_ptr<TrainedModel>>& models,
                 const std::string& of, const Evaluation* first) {
  if (models.empty() || models.front()->dataset().test.empty()) return;
  EvaluateOptions eo;
  eo.ks = {10};
  std::vector<Evaluation> runs;
  Evaluation popularity;
  for (size_t k = 0; k < models.size(); ++k)
    with_memory_context("evaluating the ranking of run " + std::to_string(k), [&] {
      runs.push_back(k == 0 && first ? *first : evaluate(*models[k], eo));
      if (k == 0) popularity = evaluate_popularity(*models[k], eo);
    });
  m.evaluation = fitting::evaluation_json(runs[0]);
  m.evaluation["of"] = of;
  m.ranking_at_10 = fitting::ranking_summary(runs, popularity);
}

}  // namespace symgnn::fitting
