// A C++ user's program against an installed symgnn: fits the default model on the embedded
// synthetic set for a few epochs (symgnn/fit.h), predicts one rating, and multiplies by a
// graph (symgnn/graph.h through model.h), so that LibTorch's headers and compile flags
// reach the user through symgnn::symgnn too. tests/package/check_install.cmake checks the line.
#include <symgnn/fit.h>
#include <symgnn/model.h>

#include <cmath>
#include <cstdio>

int main() {
  symgnn::RunConfig cfg = symgnn::start_config("", "");
  cfg.data.source = "synthetic";
  cfg.train.epochs = 3;
  symgnn::FitOptions opts;
  const symgnn::FitResult r = symgnn::fit(cfg, opts);
  const double rmse = r.metrics.mean("test_rmse");
  const std::vector<float> p = r.model->predict({0}, {0});
  const double s = symgnn::graph::spmm(symgnn::graph::identity(3), torch::ones({3, 2})).sum().item<double>();
  std::printf("consumer: %s on synthetic, test RMSE %.4f, prediction (0,0) %.3f, sum(I*1) %.0f\n",
              r.model->name().c_str(), rmse, p.at(0), s);
  return std::isfinite(rmse) && std::isfinite(p.at(0)) && s == 6 ? 0 : 1;
}
