#include "train/checkpoint.h"

#include <torch/nn/module.h>
#include <torch/serialize.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "symgnn/config.h"
#include "symgnn/error.h"
#include "train/model_folder.h"
#include "util/atomic_file.h"
#include "util/checksum.h"

namespace symgnn::train {

namespace {

/// The bytes of `archive`. LibTorch's archive writer ends the file in its destructor, which
/// throws after any short write: a buffer that could not grow (`ulimit -v`) ended the process
/// in std::terminate. So every write "succeeds" here, and a failure to hold the bytes is this
/// function's std::bad_alloc (one line: "out of memory while ...").
std::string archive_bytes(torch::serialize::OutputArchive& archive) {
  // The size first, so that the buffer is allocated once at its length: grown by doubling,
  // it held up to twice the archive and copied it at each step.
  size_t size = 0;
  archive.save_to([&](const void*, size_t n) -> size_t {
    size += n;
    return n;
  });
  std::string bytes;
  bool out_of_memory = false;
  bytes.reserve(size);  // std::bad_alloc here, before anything is written
  archive.save_to([&](const void* data, size_t n) -> size_t {
    if (!out_of_memory) try {
        bytes.append(static_cast<const char*>(data), n);
      } catch (const std::bad_alloc&) {
        out_of_memory = true;
        std::string().swap(bytes);
      }
    return n;
  });
  if (out_of_memory) throw std::bad_alloc();
  return bytes;
}

}  // namespace

void save_archive_atomic(torch::serialize::OutputArchive& archive, const std::string& path,
                         Integrity integrity) {
  write_text_atomic(path, archive_bytes(archive), integrity);
}

void load_archive(torch::serialize::InputArchive& archive, const std::string& path,
                  const at::Device& device) {
  if (!std::filesystem::exists(path)) throw CheckpointError(path + ": no such file");
  try {
    // The checksum first: a damaged tensor would otherwise load as garbage weights.
    // model.pt: plain, listed in the manifest; checkpoints (and models written before
    // model.pt was plain): sealed, their header checked.
    std::istringstream payload(unseal(read_verified_file(path), path));
    archive.load_from(payload, device);
  } catch (const c10::Error& e) {
    std::string what = e.what_without_backtrace();
    if (const auto nl = what.find('\n'); nl != std::string::npos) what = what.substr(0, nl);
    throw CheckpointError(path + ": corrupt or not a symgnn file (" + what + ")");
  }
}

namespace {
c10::IValue read_value(torch::serialize::InputArchive& a, const std::string& key, const std::string& path) {
  c10::IValue v;
  if (!a.try_read(key, v)) throw CheckpointError(path + ": missing entry '" + key + "'");
  return v;
}
}  // namespace

std::string read_string(torch::serialize::InputArchive& a, const std::string& key, const std::string& path) {
  auto v = read_value(a, key, path);
  if (!v.isString()) throw CheckpointError(path + ": entry '" + key + "' is not a string");
  return v.toStringRef();
}

int64_t read_int(torch::serialize::InputArchive& a, const std::string& key, const std::string& path) {
  auto v = read_value(a, key, path);
  if (!v.isInt()) throw CheckpointError(path + ": entry '" + key + "' is not an integer");
  return v.toInt();
}

double read_double(torch::serialize::InputArchive& a, const std::string& key, const std::string& path) {
  auto v = read_value(a, key, path);
  if (!v.isDouble()) throw CheckpointError(path + ": entry '" + key + "' is not a number");
  return v.toDouble();
}

void write_module_state(torch::serialize::OutputArchive& archive, torch::nn::Module& m) {
  int64_t count = 0;
  // Copies: the archive keeps references until it is saved, and save_model moves the
  // module through several weight sets before that.
  for (const auto& p : m.named_parameters())
    archive.write("p:" + p.key(), p.value().detach().clone()), ++count;
  for (const auto& b : m.named_buffers())
    archive.write("b:" + b.key(), b.value().detach().clone(), true), ++count;
  archive.write("tensor_count", c10::IValue(count));
}

void read_module_state(torch::serialize::InputArchive& archive, torch::nn::Module& m,
                       const std::string& path) {
  // Module::load would silently accept tensors of another shape: check every one.
  int64_t count = 0;
  auto load_one = [&](const std::string& key, at::Tensor& target, bool buffer) {
    at::Tensor t;
    if (!archive.try_read(key, t, buffer)) {
      // A buffer registered with no rows that the file lacks is a list a kind keeps since
      // after the file was written (EASE's item weights): it stays empty, and the kind
      // says what it cannot do without it.
      if (buffer && target.dim() >= 1 && target.size(0) == 0) return;
      throw CheckpointError(path + ": no tensor '" + key.substr(2) + "' (saved by a different model)");
    }
    // A buffer registered with no rows holds lists whose length follows from the fit (the
    // sparse ItemKNN's, models/closed_form/itemknn_model.h): it takes the saved length.
    if (buffer && target.dim() == t.dim() && target.dim() >= 1 && target.size(0) == 0 &&
        t.sizes().slice(1) == target.sizes().slice(1)) {
      torch::NoGradGuard no_grad;
      target.set_(t.to(target.device(), target.scalar_type()).contiguous());
      ++count;
      return;
    }
    if (t.sizes() != target.sizes())
      throw CheckpointError(path + ": tensor '" + key.substr(2) + "' has shape " + c10::str(t.sizes()) +
                            ", the model expects " + c10::str(target.sizes()) +
                            " (different data or config?)");
    torch::NoGradGuard no_grad;
    target.copy_(t);
    ++count;
  };
  for (auto& p : m.named_parameters()) load_one("p:" + p.key(), p.value(), false);
  for (auto& b : m.named_buffers()) load_one("b:" + b.key(), b.value(), true);
  if (read_int(archive, "tensor_count", path) != count)
    throw CheckpointError(path + ": holds a different number of tensors than the model (different model?)");
}

ModuleState module_state(torch::nn::Module& m, bool copy) {
  ModuleState out;
  const auto taken = [copy](const at::Tensor& t) { return copy ? t.detach().clone() : t.detach(); };
  for (const auto& p : m.named_parameters()) out[p.key()] = taken(p.value());
  for (const auto& b : m.named_buffers()) out["buffer:" + b.key()] = taken(b.value());
  return out;
}

void set_module_state(torch::nn::Module& m, const ModuleState& state) {
  torch::NoGradGuard no_grad;
  for (auto& p : m.named_parameters()) p.value().copy_(state.at(p.key()));
  for (auto& b : m.named_buffers()) {
    const at::Tensor& t = state.at("buffer:" + b.key());
    if (b.value().sizes() == t.sizes())
      b.value().copy_(t);
    else  // a list of fitted length (read_module_state)
      b.value().set_(t.to(b.value().device(), b.value().scalar_type()).clone());
  }
}

namespace {

/// "a,b,c" -> {"a", "b", "c"} ("" -> none).
std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// Several module states as one archive: "count", then "0", "1", ... (the weight average
/// is a list of zero or one state, the averaged checkpoints' weights one per member).
void write_states(torch::serialize::OutputArchive& a, const std::vector<ModuleState>& states) {
  a.write("count", c10::IValue(static_cast<int64_t>(states.size())));
  for (size_t k = 0; k < states.size(); ++k) {
    torch::serialize::OutputArchive one;
    for (const auto& [key, v] : states[k]) one.write(key, v);
    a.write(std::to_string(k), one);
  }
}

/// Reads what write_states wrote, each state with the keys and devices of `like`.
std::vector<ModuleState> read_states(torch::serialize::InputArchive& a, const ModuleState& like,
                                     const std::string& path) {
  std::vector<ModuleState> out;
  const int64_t n = read_int(a, "count", path);
  for (int64_t k = 0; k < n; ++k) {
    torch::serialize::InputArchive one;
    a.read(std::to_string(k), one);
    ModuleState m;
    for (const auto& [key, v] : like) {
      at::Tensor t;
      one.read(key, t);
      m[key] = t.to(v.device());
    }
    out.push_back(std::move(m));
  }
  return out;
}

/// Named values as one float64 row and their names joined by commas: how a checkpoint
/// stores the epoch metrics (the history's columns, the selected epoch's figures).
std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

/// The history as an epochs x (4 + metrics) float64 tensor: epoch, loss, lr, seconds, peak
/// memory, then the metrics of `names` (NaN where an epoch has none).
at::Tensor history_tensor(const std::vector<EpochRecord>& h, const std::vector<std::string>& names) {
  const int64_t cols = 5 + static_cast<int64_t>(names.size());
  auto t = torch::zeros({static_cast<int64_t>(h.size()), cols}, torch::kFloat64);
  auto a = t.accessor<double, 2>();
  for (size_t k = 0; k < h.size(); ++k) {
    const auto& r = h[k];
    std::vector<double> row = {double(r.epoch), r.loss, r.lr, r.seconds, double(r.peak_memory_bytes)};
    for (const auto& n : names) row.push_back(r.metric(n));
    for (int64_t c = 0; c < cols; ++c) a[static_cast<int64_t>(k)][c] = row[static_cast<size_t>(c)];
  }
  return t;
}

/// What history_tensor wrote; `names` empty: a checkpoint of symgnn-checkpoint-1, whose
/// eight columns were epoch, loss, train_rmse, val_rmse, test_rmse, lr, seconds, peak.
std::vector<EpochRecord> history_from(const at::Tensor& t, const std::vector<std::string>& names) {
  std::vector<EpochRecord> h;
  auto c = t.to(torch::kCPU).to(torch::kFloat64).contiguous();
  auto a = c.accessor<double, 2>();
  for (int64_t k = 0; k < c.size(0); ++k) {
    EpochRecord r;
    r.epoch = static_cast<int64_t>(a[k][0]);
    r.loss = a[k][1];
    if (names.empty()) {
      r.metrics = {{"train_rmse", a[k][2]}, {"val_rmse", a[k][3]}, {"test_rmse", a[k][4]}};
      r.lr = a[k][5];
      r.seconds = a[k][6];
      r.peak_memory_bytes = static_cast<int64_t>(a[k][7]);
    } else {
      r.lr = a[k][2];
      r.seconds = a[k][3];
      r.peak_memory_bytes = static_cast<int64_t>(a[k][4]);
      for (size_t m = 0; m < names.size(); ++m)
        if (!std::isnan(a[k][5 + static_cast<int64_t>(m)]))
          r.metrics[names[m]] = a[k][5 + static_cast<int64_t>(m)];
    }
    h.push_back(std::move(r));
  }
  return h;
}

/// What a checkpoint holds (save_checkpoint's doc), as an archive.
void write_checkpoint(torch::serialize::OutputArchive& a, const std::string& config_text, int64_t run,
                      models::RatingModel& model, torch::optim::AdamW& opt, const RunState& st) {
  a.write("format", c10::IValue(std::string(kCheckpointFormat)));
  a.write("config", c10::IValue(config_text));
  a.write("run", c10::IValue(run));
  a.write("epoch", c10::IValue(st.epoch));
  a.write("lr", c10::IValue(st.lr));
  a.write("best_val", c10::IValue(st.best_val));
  std::vector<std::string> at_best_names;
  std::vector<double> at_best_values;
  for (const auto& [name, value] : st.at_best) at_best_names.push_back(name), at_best_values.push_back(value);
  a.write("at_best_names", c10::IValue(joined(at_best_names)));
  a.write("at_best", torch::tensor(at_best_values, torch::kFloat64));
  a.write("best_epoch", c10::IValue(st.best_epoch));
  a.write("since_best", c10::IValue(st.since_best));
  a.write("since_lr", c10::IValue(st.since_lr));
  a.write("seconds", c10::IValue(st.seconds));
  a.write("peak_memory", c10::IValue(st.peak_memory));
  a.write("history_columns", c10::IValue(joined(epoch_metric_names())));
  a.write("history", history_tensor(st.history, epoch_metric_names()));
  a.write("best_test_pred", st.best_test_pred.defined() ? st.best_test_pred : torch::zeros({0}));
  a.write("best_val_pred", st.best_val_pred.defined() ? st.best_val_pred : torch::zeros({0}));
  a.write("avg_test_sum", st.avg_test_sum.defined() ? st.avg_test_sum : torch::zeros({0}));
  a.write("avg_count", c10::IValue(st.avg_count));
  torch::serialize::OutputArchive ema, members;
  write_states(ema, st.ema.empty() ? std::vector<ModuleState>{} : std::vector<ModuleState>{st.ema});
  write_states(members, st.members);
  a.write("ema", ema);
  a.write("members", members);
  torch::serialize::OutputArchive weights, best, optim;
  write_module_state(weights, model);
  for (const auto& [k, v] : st.best) best.write(k, v);
  opt.save(optim);
  a.write("weights", weights);
  a.write("best", best);
  a.write("optimizer", optim);
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    a.write("rng_cpu", gen.get_state());
  }
}

}  // namespace

void save_checkpoint(const std::string& path, const std::string& config_text, int64_t run,
                     models::RatingModel& model, torch::optim::AdamW& opt, const RunState& st) {
  torch::serialize::OutputArchive a;
  write_checkpoint(a, config_text, run, model, opt, st);
  save_archive_atomic(a, path);
}

std::string checkpoint_bytes(const std::string& config_text, int64_t run, models::RatingModel& model,
                             torch::optim::AdamW& opt, const RunState& st) {
  torch::serialize::OutputArchive a;
  write_checkpoint(a, config_text, run, model, opt, st);
  return archive_bytes(a);
}

namespace {

/// Restores what write_checkpoint wrote into `a`; `path` names it in errors, and an empty
/// `config_text` skips the check of the config it was written with.
void read_checkpoint(torch::serialize::InputArchive& a, const std::string& path,
                     const std::string& config_text, int64_t run, models::RatingModel& model,
                     torch::optim::AdamW& opt, RunState& st) {
  const std::string format = read_string(a, "format", path);
  const bool first_format = format == kCheckpointFormatV1;  // no metric names yet
  if (format != kCheckpointFormat && !first_format)
    throw CheckpointError(path + ": format '" + format + "', expected '" + kCheckpointFormat + "'");
  // The same run: its config read back equals this one (keys added since it was written
  // take their defaults, as they would have in it).
  RunConfig recorded;
  load_config_text(recorded, read_string(a, "config", path), path);
  if (!config_text.empty() && to_text(recorded) != config_text)
    throw CheckpointError(path +
                          ": checkpoint was written with a different configuration; resume with the same "
                          "config and flags (see the config recorded in the checkpoint directory)");
  if (read_int(a, "run", path) != run) throw CheckpointError(path + ": checkpoint belongs to another run");
  st.epoch = read_int(a, "epoch", path);
  st.lr = read_double(a, "lr", path);
  st.best_val = read_double(a, "best_val", path);
  if (first_format) {
    st.at_best = {{"test_rmse", read_double(a, "test_at_best", path)}};
    if (std::isfinite(st.best_val)) st.at_best["val_rmse"] = st.best_val;
  } else {
    const std::vector<std::string> names = split_names(read_string(a, "at_best_names", path));
    at::Tensor values;
    a.read("at_best", values);
    const at::Tensor v = values.to(torch::kCPU).to(torch::kFloat64).contiguous();
    if (v.numel() != static_cast<int64_t>(names.size()))
      throw CheckpointError(path + ": at_best holds " + std::to_string(v.numel()) + " values for " +
                            std::to_string(names.size()) + " names");
    st.at_best.clear();
    for (size_t k = 0; k < names.size(); ++k) st.at_best[names[k]] = v.data_ptr<double>()[k];
  }
  st.best_epoch = read_int(a, "best_epoch", path);
  st.since_best = read_int(a, "since_best", path);
  st.since_lr = read_int(a, "since_lr", path);
  st.seconds = read_double(a, "seconds", path);
  st.peak_memory = read_int(a, "peak_memory", path);
  at::Tensor hist, rng;
  torch::serialize::InputArchive weights, best, optim;
  try {
    a.read("history", hist);
    a.read("best_test_pred", st.best_test_pred);
    a.read("best_val_pred", st.best_val_pred);
    a.read("avg_test_sum", st.avg_test_sum);
    if (st.avg_test_sum.numel() == 0) st.avg_test_sum = at::Tensor();
    st.avg_count = read_int(a, "avg_count", path);
    torch::serialize::InputArchive ema, members;
    a.read("ema", ema);
    a.read("members", members);
    const ModuleState like = module_state(model);
    const auto ema_states = read_states(ema, like, path);
    st.ema = ema_states.empty() ? ModuleState{} : ema_states.front();
    st.members = read_states(members, like, path);
    a.read("rng_cpu", rng);
    a.read("weights", weights);
    a.read("best", best);
    a.read("optimizer", optim);
    read_module_state(weights, model, path);
    opt.load(optim);
    st.best.clear();
    for (const auto& [k, v] : module_state(model)) {
      at::Tensor t;
      best.read(k, t);
      st.best[k] = t.to(v.device());
    }
  } catch (const c10::Error& e) {
    std::string what = e.what_without_backtrace();
    if (const auto nl = what.find('\n'); nl != std::string::npos) what = what.substr(0, nl);
    throw CheckpointError(path + ": checkpoint does not match the model (" + what + ")");
  }
  st.history = history_from(
      hist, first_format ? std::vector<std::string>{} : split_names(read_string(a, "history_columns", path)));
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(rng.to(torch::kCPU));
}

}  // namespace

void load_checkpoint(const std::string& path, const std::string& config_text, int64_t run,
                     models::RatingModel& model, torch::optim::AdamW& opt, RunState& st,
                     const at::Device& device) {
  torch::serialize::InputArchive a;
  load_archive(a, path, device);
  read_checkpoint(a, path, config_text, run, model, opt, st);
}

void load_checkpoint_bytes(const std::string& bytes, const std::string& what, int64_t run,
                           models::RatingModel& model, torch::optim::AdamW& opt, RunState& st,
                           const at::Device& device) {
  torch::serialize::InputArchive a;
  a.load_from(bytes.data(), bytes.size(), device);
  read_checkpoint(a, what, "", run, model, opt, st);
}

void save_model(models::RatingModel& model, const std::string& config_text, const std::string& path,
                const std::vector<ModuleState>& members) {
  torch::serialize::OutputArchive archive;
  archive.write("format", c10::IValue(std::string(kModelFormat)));
  archive.write("config", c10::IValue(config_text));
  archive.write("name", c10::IValue(model.name()));
  const ModuleState current = members.empty() ? ModuleState{} : module_state(model);
  const auto count = static_cast<int64_t>(std::max<size_t>(1, members.size()));
  // The parts of the folder loading needs (train/model_folder.h), so that a folder that
  // loses one is refused rather than answering from something else.
  std::string parts;
  // Each with its checksum where it has one ("dataset.bin=<sha256>"), so that a part copied
  // from another run is refused as a missing one is.
  for (const std::string& part : folder_parts(path)) {
    const std::string sum = part_checksum(path, part);
    parts += (parts.empty() ? "" : ",") + part + (sum.empty() ? "" : "=" + sum);
  }
  archive.write("parts", c10::IValue(parts));
  archive.write("member_count", c10::IValue(count));
  for (int64_t k = 0; k < count; ++k) {
    if (!members.empty()) set_module_state(model, members[static_cast<size_t>(k)]);
    torch::serialize::OutputArchive weights;
    write_module_state(weights, model);
    // "weights" is the first member: files written before averaging existed read the same.
    archive.write(k == 0 ? std::string("weights") : "weights" + std::to_string(k), weights);
  }
  if (!members.empty()) set_module_state(model, current);
  // A plain LibTorch archive (torch.load opens it), its checksum in the folder's manifest.
  save_archive_atomic(archive, path, Integrity::listed);
}

ModelRecord read_model_record(const std::string& path) {
  torch::serialize::InputArchive archive;
  load_archive(archive, path, at::Device(at::kCPU));
  const std::string format = read_string(archive, "format", path);
  if (format != kModelFormat)
    throw CheckpointError(path + ": format '" + format + "', expected '" + kModelFormat + "'");
  ModelRecord r;
  r.config = read_string(archive, "config", path);
  c10::IValue parts;
  if (archive.try_read("parts", parts)) {  // files written before parts were recorded have none
    if (!parts.isString()) throw CheckpointError(path + ": entry 'parts' is not a string");
    std::string part;
    std::istringstream in(parts.toStringRef());
    while (std::getline(in, part, ',')) {
      if (part.empty()) continue;
      const size_t eq = part.find('=');
      r.parts.push_back(part.substr(0, eq));
      if (eq != std::string::npos) r.part_checksums[part.substr(0, eq)] = part.substr(eq + 1);
    }
  }
  return r;
}

std::string read_model_config(const std::string& path) {
  return read_model_record(path).config;
}

void load_model_weights(models::RatingModel& model, const std::string& path, const at::Device& device) {
  torch::serialize::InputArchive archive;
  load_archive(archive, path, device);
  torch::serialize::InputArchive weights;
  if (!archive.try_read("weights", weights)) throw CheckpointError(path + ": missing entry 'weights'");
  read_module_state(weights, model, path);
}

std::vector<ModuleState> load_model_members(models::RatingModel& model, const std::string& path,
                                            const at::Device& device) {
  torch::serialize::InputArchive archive;
  load_archive(archive, path, device);
  c10::IValue count_value;
  const int64_t count =
      archive.try_read("member_count", count_value) && count_value.isInt() ? count_value.toInt() : 1;
  if (count < 1) throw CheckpointError(path + ": member_count " + std::to_string(count) + " is not positive");
  std::vector<ModuleState> members;
  for (int64_t k = 0; k < count; ++k) {
    const std::string key = k == 0 ? std::string("weights") : "weights" + std::to_string(k);
    torch::serialize::InputArchive weights;
    if (!archive.try_read(key, weights)) throw CheckpointError(path + ": missing entry '" + key + "'");
    read_module_state(weights, model, path);
    members.push_back(module_state(model));
  }
  set_module_state(model, members.front());
  return members;
}

}  // namespace symgnn::train
