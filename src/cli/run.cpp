// Builds the CLI11 app from the subcommands and maps errors to exit codes.
#include <exception>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/launch.h"
#include "symgnn/error.h"
#include "util/memory_check.h"

namespace symgnn::cli {

namespace {

void add_commands(CLI::App& app) {
  app.require_subcommand(1);
  // Usage errors in one line, like every other error (CLI11's default adds a second).
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "symgnn: error: " + std::string(e.what()) + " (see --help)\n";
  });
  app.set_version_flag("--version", [] { return std::string("symgnn (see `symgnn version` for details)"); });
  add_version_command(app);
  add_config_command(app);
  add_data_command(app);
  add_train_command(app);
  add_predict_command(app);
  add_recommend_command(app);
  add_rank_command(app);
  add_refresh_command(app);
  add_export_command(app);
  add_explain_command(app);
  add_graph_command(app);
  add_evaluate_command(app);
  add_sylvester_command(app);
  add_reproduce_command(app);
  add_tune_command(app);
  add_blend_command(app);
  add_serve_command(app);
}

/// "cannot create directories 'runs/x': File name too long" from libstdc++'s
/// "filesystem error: cannot create directories: File name too long [runs/x]".
std::string filesystem_message(const std::filesystem::filesystem_error& e) {
  std::string what = e.what();
  const std::string prefix = "filesystem error: ";
  if (what.rfind(prefix, 0) == 0) what.erase(0, prefix.size());
  std::string operation = what.substr(0, what.find(':'));
  if (operation.empty() || operation == what) operation = "cannot use";
  std::string paths = "'" + e.path1().string() + "'";
  if (!e.path2().empty()) paths += " -> '" + e.path2().string() + "'";
  return operation + " " + paths + ": " + e.code().message();
}

}  // namespace

int run(int argc, const char* const* argv) {
  CLI::App app{
      "symgnn: geometric matrix completion with Sylvester Multi-Graph Neural Networks.\n"
      "Predicts missing ratings from a rating matrix plus a user graph and an item graph\n"
      "(or side features to build them from).\n\n"
      "Examples:\n"
      "  symgnn data info synthetic\n"
      "  symgnn train                                  # the embedded synthetic dataset\n"
      "  symgnn train --data ../shared/data/ml-100k --config configs/ml100k_lowrank.conf\n"
      "  symgnn models                                 # the model kinds train --model fits\n"
      "  symgnn sylvester --data ../shared/data/monti/flixster.mat --alpha 0.8 --out X.csv\n"
      "  symgnn reproduce --quick                      # the paper's tables and figures, 1 seed\n"
      "  symgnn tune --data synthetic --config base.conf --space configs/spaces/lowrank.space --budget 20\n"
      "  symgnn blend --models runs/lowrank runs/sylv  # weights fitted on validation, test RMSE\n",
      "symgnn"};
  try {
    // Inside the try: under a tight `ulimit -v` the commands' setup is where the first
    // allocation fails, and that is one line too.
    add_commands(app);
    set_process_arguments(argc, argv);  // for train --nproc, which runs the same command N times
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::Success& e) {  // --help, --version (CallForHelp derives from Success)
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {  // a command's own non-zero exit code
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const Error& e) {
    std::cerr << "symgnn: error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user named that cannot be made or written (a dangling link, a name over
    // the system's limit, a read-only or virtual file system): their input, not our bug.
    std::cerr << "symgnn: error: " << filesystem_message(e) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {  // outside the steps that name themselves (util/memory_check.h)
    std::cerr << "symgnn: error: "
              << out_of_memory_message(argc > 1 ? std::string("symgnn ") + argv[1] : "symgnn", "") << "\n";
    return 2;
  } catch (const std::exception& e) {
    // LibTorch's errors carry a backtrace after their first line: the line is the message.
    if (is_allocation_failure(e.what())) {
      std::cerr << "symgnn: error: "
                << out_of_memory_message(argc > 1 ? std::string("symgnn ") + argv[1] : "symgnn", e.what())
                << "\n";
      return 2;
    }
    std::string what = e.what();
    if (const size_t nl = what.find('\n'); nl != std::string::npos) what.resize(nl);
    std::cerr << "symgnn: internal error: " << what << "\n";
    return 1;
  }
}

}  // namespace symgnn::cli
