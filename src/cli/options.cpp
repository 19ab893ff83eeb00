// The options every data-reading command shares, and their merge into a RunConfig.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "cli/commands.h"
#include "runtime/runtime.h"
#include "symgnn/error.h"
#include "util/text.h"

namespace symgnn::cli {

CLI::Validator config_value_check(const std::string& key) {
  return CLI::Validator(
      [key](std::string& value) {
        RunConfig scratch;
        try {
          set_config_value(scratch, key, value);
        } catch (const ConfigError& e) {
          return std::string(e.what());
        }
        return std::string();
      },
      "", key);
}

CLI::Validator finite_number(double above) {
  return CLI::Validator(
      [above](std::string& value) {
        const std::string what =
            std::isfinite(above) ? "a number above " + fixed(above, 0) : "a finite number";
        double x = 0;
        try {
          size_t used = 0;
          x = std::stod(value, &used);
          if (used != value.size()) return "must be " + what + ", got '" + value + "'";
        } catch (const std::exception&) {
          return "must be " + what + ", got '" + value + "'";
        }
        if (!std::isfinite(x) || (std::isfinite(above) && !(x > above)))
          return "must be " + what + ", got '" + value + "'";
        return std::string();
      },
      "", "finite");
}

void add_common_options(CLI::App* cmd, CommonOptions& opts, bool with_data_flag) {
  if (with_data_flag)
    cmd->add_option("--data", opts.data,
                    "dataset: 'synthetic' (default), a MovieLens-100K/1M directory, a Monti .mat file, "
                    "or a ratings CSV/TSV 'user,item,rating'");
  cmd->add_option("--split", opts.split,
                  "test split (data.split): MovieLens-100K's u1 (default), u2..u5, ua, ub; temporal or "
                  "leave_last_out (by the ratings' times)");
  cmd->add_option("--config", opts.config_file, "config file of 'section.key = value' lines (see configs/)");
  cmd->add_option("--preset", opts.preset,
                  "starting point of every key: recommended (default: the paper's model with the measured "
                  "extensions) or paper (the faithful reading); docs/config.md")
      ->check(CLI::IsMember({"paper", "recommended"}));
  cmd->add_option("--set", opts.sets, "override one key, e.g. --set train.epochs=100 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--threads", opts.threads, "intra-op threads (default: one per core)")
      ->check(config_value_check("train.threads"));
  cmd->add_option("--device", opts.device, "cpu (default), cuda or cuda:N");
}

RunConfig make_config(const CommonOptions& opts, const std::string& model) {
  RunConfig cfg = start_config(opts.preset, opts.config_file);
  if (!model.empty()) set_config_value(cfg, "model", model, "--model");
  if (!opts.data.empty()) cfg.data.source = opts.data;
  if (!opts.split.empty()) set_config_value(cfg, "data.split", opts.split, "--split");
  if (opts.threads >= 0) set_config_value(cfg, "train.threads", std::to_string(opts.threads), "--threads");
  if (!opts.device.empty()) set_config_value(cfg, "train.device", opts.device, "--device");
  if (opts.seed >= 0) set_config_value(cfg, "train.seed", std::to_string(opts.seed), "--seed");
  for (const auto& s : opts.sets) apply_override(cfg, s);
  check_config(cfg);
  runtime::check_device(cfg.train.device, opts.device.empty() ? "train.device =" : "--device");
  return cfg;
}

void apply_runtime(const RunConfig& cfg) {
  runtime::set_compute_threads(cfg.train.threads);
}

}  // namespace symgnn::cli
