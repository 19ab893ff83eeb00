// `symgnn config`: the configuration keys, their defaults and docs; `symgnn models`: the
// model kinds the `model` key names.
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>

#include "cli/commands.h"
#include "symgnn/model_kinds.h"

namespace symgnn::cli {
namespace {

/// `symgnn models`: the table of model kinds (symgnn/model_kinds.h), the values of the
/// config's `model` key that `train --model` takes.
void add_models_subcommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "models",
      "list the model kinds `train --model` fits: how each is fitted and what it supports\n"
      "  symgnn models\n"
      "  symgnn train --model popularity --data ../shared/data/ml-100k --out runs/pop");
  cmd->callback([] {
    // The first column is as wide as the longest kind's name (sylvester_binary), plus a gap.
    int name_width = 6;
    for (const ModelKind& k : kModelKinds)
      name_width = std::max(name_width, static_cast<int>(std::strlen(k.name)) + 2);
    std::cout << std::left << std::setw(name_width) << "kind" << std::setw(13) << "fitted" << std::setw(11)
              << "section" << std::setw(10) << "variants" << std::setw(11) << "new users" << std::setw(11)
              << "graphs"
              << "objectives\n";
    for (const ModelKind& k : kModelKinds)
      std::cout << std::setw(name_width) << k.name << std::setw(13)
                << (k.fit == FitMethod::trained ? "by training" : "closed form") << std::setw(11)
                << (*k.section ? k.section : "-") << std::setw(10) << (k.variants ? "full|G|A" : "-")
                << std::setw(11) << (k.new_nodes ? "yes" : "no") << std::setw(11)
                << (*k.graphs ? k.graphs : "-") << k.objectives << "\n";
    std::cout << "\n";
    for (const ModelKind& k : kModelKinds) std::cout << k.name << ": " << k.summary << "\n";
  });
}

}  // namespace

void add_config_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "config",
      "print the effective configuration (the preset, then --config FILE, then --set) or the key reference\n"
      "  symgnn config --defaults > my.conf\n  symgnn config --defaults --preset paper\n  symgnn config "
      "--config configs/douban_lowrank.conf "
      "--set train.epochs=10");
  auto opts = std::make_shared<CommonOptions>();
  auto markdown = std::make_shared<bool>(false);
  auto defaults = std::make_shared<bool>(false);
  cmd->add_flag("--markdown", *markdown, "print the key reference as Markdown (docs/config.md)");
  cmd->add_flag("--defaults", *defaults, "print every key with its default value");
  cmd->add_option("--config", opts->config_file, "config file to read");
  cmd->add_option("--preset", opts->preset, "starting point: recommended (default) or paper")
      ->check(CLI::IsMember({"paper", "recommended"}));
  cmd->add_option("--set", opts->sets, "override one key (repeatable)")->type_name("KEY=VALUE");
  cmd->callback([=] {
    if (*markdown) {
      std::cout << config_markdown();
      return;
    }
    RunConfig cfg = *defaults ? preset_config(opts->preset.empty() ? default_preset() : opts->preset)
                              : make_config(*opts);
    std::cout << to_text(cfg);
  });
  add_models_subcommand(app);
}

}  // namespace symgnn::cli
