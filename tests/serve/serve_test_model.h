// The small trained models the serve tests answer from: a synthetic set of 40 x 30, fitted
// once per test process into a scratch folder; and the requests' helpers they share.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "common/test_support.h"
#include "serve/api.h"
#include "symgnn/fit.h"

namespace symgnn::testing {

/// A model directory of `kind` under `preset` at hidden 8, 3 epochs, fitted on the synthetic
/// 40 x 30 set, with `adjust` applied last, in the scratch folder serve_<tag>.
inline std::string serve_test_model(const std::string& kind, const std::string& preset,
                                    const std::function<void(symgnn::RunConfig&)>& adjust,
                                    const std::string& tag) {
  symgnn::RunConfig cfg = symgnn::preset_config(preset);
  cfg.model = kind;
  cfg.data.synthetic_users = 40;
  cfg.data.synthetic_items = 30;
  cfg.data.synthetic_density = 0.3;
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 8;
  if (adjust) adjust(cfg);
  symgnn::FitOptions fo;
  fo.out_dir = scratch_dir("serve_" + tag) + "/model";
  fo.overwrite = true;
  symgnn::fit(cfg, fo);
  return fo.out_dir;
}

/// A model directory of `kind` (lowrank: the paper's reading; or a closed-form kind).
inline std::string serve_test_model(const std::string& kind) {
  return serve_test_model(kind, "paper", {}, kind);
}

/// The one-line error of a refused request, checking its status and shape.
inline std::string error_of(const symgnn::serve::Response& r, int status) {
  EXPECT_EQ(r.status, status) << r.body;
  const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  EXPECT_TRUE(j.is_object() && j.contains("error")) << r.body;
  const std::string e = j.value("error", "");
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  return e;
}

/// `api`'s answer to GET `path` with the query `params`, without a socket.
inline symgnn::serve::Response get_request(const symgnn::serve::Api& api, const std::string& path,
                                           std::multimap<std::string, std::string> params = {}) {
  symgnn::serve::Request q;
  q.method = "GET";
  q.path = path;
  q.params = std::move(params);
  return api.handle(q);
}

}  // namespace symgnn::testing
