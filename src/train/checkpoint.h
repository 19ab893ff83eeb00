// Checkpoints (one per run, in <out>/run<r>/checkpoint.pt) and the saved model
// (<out>/model.pt) that `symgnn predict` loads. Both record the format version and the
// full RunConfig text; loading checks them and rebuilds nothing from the current flags.
// Files are written atomically (temporary file + rename).
#pragma once

#include <torch/optim/adamw.h>
#include <torch/serialize/archive.h>

#include <map>
#include <string>
#include <vector>

#include "symgnn/model.h"
#include "train/run_state.h"
#include "util/atomic_file.h"

namespace symgnn::train {

/// -2 names the epoch metrics of its history and selected epoch (train/epoch_metrics.h);
/// -1 (before them) still loads.
inline constexpr const char* kCheckpointFormat = "symgnn-checkpoint-2";
inline constexpr const char* kCheckpointFormatV1 = "symgnn-checkpoint-1";
inline constexpr const char* kModelFormat = "symgnn-model-1";

/// Serialises `archive` to `path` atomically: sealed (checkpoints), or as the plain LibTorch
/// archive with its checksum in the folder's manifest (model.pt, which torch.load opens).
void save_archive_atomic(torch::serialize::OutputArchive& archive, const std::string& path,
                         Integrity integrity = Integrity::sealed);

/// Loads `path` into `archive` (sealed, or plain and checked against its folder's manifest);
/// CheckpointError when missing or corrupt, DataError when its checksum differs.
void load_archive(torch::serialize::InputArchive& archive, const std::string& path, const at::Device& device);

/// Reads a string / int / double entry; CheckpointError naming the file and key if absent.
std::string read_string(torch::serialize::InputArchive& a, const std::string& key, const std::string& path);
int64_t read_int(torch::serialize::InputArchive& a, const std::string& key, const std::string& path);
double read_double(torch::serialize::InputArchive& a, const std::string& key, const std::string& path);

/// Writes every parameter and buffer of `m` (recursively, by dotted name) into `archive`.
void write_module_state(torch::serialize::OutputArchive& archive, torch::nn::Module& m);

/// Reads what write_module_state wrote into `m`, checking that every name exists with
/// the same shape; CheckpointError naming `path` otherwise. A buffer the model registered
/// with no rows is a list whose length follows from the fit (the sparse ItemKNN's): it takes
/// the saved length.
void read_module_state(torch::serialize::InputArchive& archive, torch::nn::Module& m,
                       const std::string& path);

/// Every parameter and buffer of `m` as a ModuleState (run_state.h), cloned; and back.
/// `copy` false: the module's own tensors (detached), for a reader that copies what it needs
/// before the module changes (a served model grown by new nodes reads its members' state so).
ModuleState module_state(torch::nn::Module& m, bool copy = true);
void set_module_state(torch::nn::Module& m, const ModuleState& state);

/// Saves the checkpoint of run `run`: the run state `st`, the model's weights, the
/// optimiser's state and the CPU random generator's state, with the config text.
void save_checkpoint(const std::string& path, const std::string& config_text, int64_t run,
                     models::RatingModel& model, torch::optim::AdamW& opt, const RunState& st);

/// Restores what save_checkpoint wrote into `model`, `opt`, `st` and the CPU random
/// generator; CheckpointError when the file is corrupt, of another format, config or run,
/// or does not match the model.
void load_checkpoint(const std::string& path, const std::string& config_text, int64_t run,
                     models::RatingModel& model, torch::optim::AdamW& opt, RunState& st,
                     const at::Device& device);

/// The checkpoint save_checkpoint would write, as bytes in memory: the state of a short run
/// that a longer run continues (TrainerOptions::warm_start, train/trainer.h).
std::string checkpoint_bytes(const std::string& config_text, int64_t run, models::RatingModel& model,
                             torch::optim::AdamW& opt, const RunState& st);

/// Restores checkpoint_bytes' state as load_checkpoint does, without the config check: the
/// caller vouches that the model is the one that wrote it. `what` names it in errors.
void load_checkpoint_bytes(const std::string& bytes, const std::string& what, int64_t run,
                           models::RatingModel& model, torch::optim::AdamW& opt, RunState& st,
                           const at::Device& device);

/// Saves the model with its config (`symgnn predict` input). `members`: the weight sets
/// whose predictions are averaged (train.average_last); empty means the model's current
/// weights alone.
void save_model(models::RatingModel& model, const std::string& config_text, const std::string& path,
                const std::vector<ModuleState>& members = {});

/// The weight sets saved by save_model (one unless averaged checkpoints were saved), each
/// checked against the model built from the same config; the model is left holding the first.
std::vector<ModuleState> load_model_members(models::RatingModel& model, const std::string& path,
                                            const at::Device& device);

/// What a saved model records beside its weights: its config text, and the parts of its
/// folder it was saved with (train/model_folder.h; none in files older than the record).
struct ModelRecord {
  std::string config;
  std::vector<std::string> parts;
  std::map<std::string, std::string> part_checksums;  // by part, where recorded (part_checksum)
};
ModelRecord read_model_record(const std::string& path);

/// Reads the config text stored in a saved model.
std::string read_model_config(const std::string& path);

/// Loads weights saved by save_model into a model built from the same config.
void load_model_weights(models::RatingModel& model, const std::string& path, const at::Device& device);

}  // namespace symgnn::train
