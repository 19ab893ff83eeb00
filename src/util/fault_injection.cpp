#include "util/fault_injection.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "util/strings.h"

namespace symgnn::fault {

namespace {

struct WriteRule {
  int error = 0;
  std::string text;
  long nth = 0;  // 0: every matching write
  long seen = 0;
};

struct Plan {
  std::vector<WriteRule> writes;
  long kill_at = 0;
  int kill_signal = SIGKILL;
  long points = 0;
};

int errno_of(const std::string& name) {
  static const std::pair<const char*, int> known[] = {
      {"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT}, {"EFBIG", EFBIG}, {"EIO", EIO},
      {"EACCES", EACCES}, {"EPERM", EPERM},   {"EROFS", EROFS}};
  for (const auto& [n, e] : known)
    if (name == n) return e;
  return 0;
}

int signal_of(const std::string& name) {
  return name == "INT" ? SIGINT : name == "TERM" ? SIGTERM : name == "HUP" ? SIGHUP : 0;
}

/// A rule it cannot read is ignored: this is a test hook, and a typo must not change what a
/// run does beyond it.
Plan parse(const std::string& spec) {
  Plan out;
  for (const std::string& rule : split(spec, ',')) {
    const std::vector<std::string> f = split(rule, ':');
    if (f.size() == 2 && f[0] == "kill") {
      out.kill_at = std::atol(f[1].c_str());
    } else if (f.size() == 3 && f[0] == "signal" && signal_of(f[1]) != 0) {
      out.kill_signal = signal_of(f[1]);
      out.kill_at = std::atol(f[2].c_str());
    } else if ((f.size() == 3 || f.size() == 4) && f[0] == "write" && errno_of(f[1]) != 0) {
      out.writes.push_back({errno_of(f[1]), f[2], f.size() == 4 ? std::atol(f[3].c_str()) : 0, 0});
    }
  }
  return out;
}

Plan& plan() {
  static Plan p = [] {
    const char* env = std::getenv("SYMGNN_FAULT_INJECT");
    return env == nullptr ? Plan{} : parse(env);
  }();
  return p;
}

std::mutex& plan_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

WriteFault write_fault(const std::string& path) {
  Plan& p = plan();
  if (p.writes.empty()) return {};
  std::lock_guard<std::mutex> lock(plan_mutex());
  for (WriteRule& r : p.writes) {
    if (path.find(r.text) == std::string::npos) continue;
    ++r.seen;
    if (r.nth != 0 && r.seen != r.nth) continue;
    const WriteStage stage = r.error == EIO ? WriteStage::sync
                             : (r.error == EACCES || r.error == EPERM || r.error == EROFS)
                                 ? WriteStage::create
                                 : WriteStage::write;
    return {r.error, stage};
  }
  return {};
}

void point() {
  Plan& p = plan();
  if (p.kill_at <= 0) return;
  std::lock_guard<std::mutex> lock(plan_mutex());
  if (++p.points == p.kill_at) ::raise(p.kill_signal);
}

void configure(const std::string& spec) {
  std::lock_guard<std::mutex> lock(plan_mutex());
  plan() = parse(spec);
}

}  // namespace symgnn::fault
