/// @file fuzz_serve_api.cpp
/// libFuzzer target over the request handler of `symgnn serve` (src/serve/api.cpp), the
/// code every HTTP request reaches (http_server.cpp only copies the request into it). The
/// model it answers from is fitted once at start-up: the popularity kind and a low-rank
/// model of 3 epochs on the synthetic set, so that every route has something to score.
///
/// An input is "METHOD PATH[?QUERY]\nAUTHORIZATION\nBODY": the first line gives the method
/// and the target (the query split on '&' and '=' as the server's library decodes it), the
/// second the Authorization header, the rest the body. Whatever the input, the handler must
/// answer (no throw, no crash, no sanitizer report) with a known status, a JSON object for
/// every route but the page and /metrics, and a one-line "error" on every refusal.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "serve/api.h"
#include "serve/model_store.h"
#include "symgnn/config.h"
#include "symgnn/fit.h"

namespace {

std::string fit_model(const std::string& kind, const std::string& dir) {
  symgnn::RunConfig cfg = symgnn::preset_config("paper");
  cfg.model = kind;
  cfg.data.synthetic_users = 30;
  cfg.data.synthetic_items = 20;
  cfg.data.synthetic_density = 0.3;
  cfg.train.epochs = 3;
  cfg.lowrank.hidden = 4;
  symgnn::FitOptions fo;
  fo.out_dir = dir;
  fo.overwrite = true;
  symgnn::fit(cfg, fo);
  return dir;
}

struct Server {
  symgnn::serve::ModelStore store;
  symgnn::serve::ServeMetrics metrics;
  symgnn::serve::Api api;
  explicit Server(const std::string& root)
      : store({{"main", fit_model("lowrank", root + "/lowrank")},
               {"pop", fit_model("popularity", root + "/pop")}},
              "cpu"),
        api(store, metrics, symgnn::serve::ApiLimits{10, 10, 100, 100, 4096}, "0123456789abcdef") {}
};

Server& server() {
  static Server* s = [] {
    const std::string root = (std::filesystem::temp_directory_path() / "symgnn-fuzz-serve").string();
    return new Server(root);
  }();
  return *s;
}

std::string percent_decoded(const std::string& s) {
  std::string out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '%' && k + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[k + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[k + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(k + 1, 2), nullptr, 16)));
      k += 2;
    } else {
      out.push_back(s[k] == '+' ? ' ' : s[k]);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  symgnn::serve::Request q;
  const size_t line1 = text.find('\n');
  const std::string first = text.substr(0, line1);
  const std::string rest = line1 == std::string::npos ? "" : text.substr(line1 + 1);
  const size_t line2 = rest.find('\n');
  q.authorization = rest.substr(0, line2);
  q.body = line2 == std::string::npos ? "" : rest.substr(line2 + 1);
  const size_t space = first.find(' ');
  q.method = first.substr(0, space);
  const std::string target = space == std::string::npos ? "" : first.substr(space + 1);
  const size_t mark = target.find('?');
  q.path = target.substr(0, mark);
  if (mark != std::string::npos) {
    const std::string query = target.substr(mark + 1);
    size_t at = 0;
    while (at <= query.size()) {
      const size_t amp = std::min(query.find('&', at), query.size());
      const std::string pair = query.substr(at, amp - at);
      const size_t eq = pair.find('=');
      q.params.emplace(percent_decoded(pair.substr(0, eq)),
                       eq == std::string::npos ? "" : percent_decoded(pair.substr(eq + 1)));
      at = amp + 1;
    }
  }
  const symgnn::serve::Response r = server().api.handle(q);
  static const std::set<int> known = {200, 400, 401, 403, 404, 405, 413, 500};
  if (!known.count(r.status)) std::abort();
  if (r.status == 500 && r.body.find("internal error") != std::string::npos)
    std::abort();  // an unexpected throw
  if (r.content_type == "application/json") {
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) std::abort();
    if (r.status != 200) {
      if (!j.contains("error") || !j["error"].is_string()) std::abort();
      if (j["error"].get<std::string>().find('\n') != std::string::npos) std::abort();
    }
  }
  return 0;
}
