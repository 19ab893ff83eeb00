#include "train/checkpoint.h"

#include <torch/serialize.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "symgnn/error.h"
#include "util/atomic_file.h"

namespace symgnn::train {

void save_archive_atomic(torch::serialize::OutputArchive& archive, const std::string& path) {
  write_file_atomic(path, [&](std::ostream& out) { archive.save_to(out); });
}

void load_archive(torch::serialize::InputArchive& archive, const std::string& path,
                  const at::Device& device) {
  if (!std::filesystem::exists(path)) throw CheckpointError(path + ": no such file");
  try {
    archive.load_from(path, device);
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
    if (!archive.try_read(key, t, buffer))
      throw CheckpointError(path + ": no tensor '" + key.substr(2) + "' (saved by a different model)");
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

ModuleState module_state(torch::nn::Module& m) {
  ModuleState out;
  for (const auto& p : m.named_parameters()) out[p.key()] = p.value().detach().clone();
  for (const auto& b : m.named_buffers()) out["buffer:" + b.key()] = b.value().detach().clone();
  return out;
}

void set_module_state(torch::nn::Module& m, const ModuleState& state) {
  torch::NoGradGuard no_grad;
  for (auto& p : m.named_parameters()) p.value().copy_(state.at(p.key()));
  for (auto& b : m.named_buffers()) b.value().copy_(state.at("buffer:" + b.key()));
}

void save_model(models::RatingModel& model, const std::string& config_text, const std::string& path,
                const std::vector<ModuleState>& members) {
  torch::serialize::OutputArchive archive;
  archive.write("format", c10::IValue(std::string(kModelFormat)));
  archive.write("config", c10::IValue(config_text));
  archive.write("name", c10::IValue(model.name()));
  const ModuleState current = members.empty() ? ModuleState{} : module_state(model);
  const auto count = static_cast<int64_t>(std::max<size_t>(1, members.size()));
  archive.write("member_count", c10::IValue(count));
  for (int64_t k = 0; k < count; ++k) {
    if (!members.empty()) set_module_state(model, members[static_cast<size_t>(k)]);
    torch::serialize::OutputArchive weights;
    write_module_state(weights, model);
    // "weights" is the first member: files written before averaging existed read the same.
    archive.write(k == 0 ? std::string("weights") : "weights" + std::to_string(k), weights);
  }
  if (!members.empty()) set_module_state(model, current);
  save_archive_atomic(archive, path);
}

std::string read_model_config(const std::string& path) {
  torch::serialize::InputArchive archive;
  load_archive(archive, path, at::Device(at::kCPU));
  const std::string format = read_string(archive, "format", path);
  if (format != kModelFormat)
    throw CheckpointError(path + ": format '" + format + "', expected '" + kModelFormat + "'");
  return read_string(archive, "config", path);
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
