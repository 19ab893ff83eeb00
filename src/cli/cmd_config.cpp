// `symgnn config`: the configuration keys, their defaults and docs.
#include <iostream>

#include "cli/commands.h"

namespace symgnn::cli {

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
}

}  // namespace symgnn::cli
