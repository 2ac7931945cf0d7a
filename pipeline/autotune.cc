#include "pipeline/autotune.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>

namespace mindrecord {

namespace {
constexpr double kMinWindowS = 0.05;
constexpr uint64_t kMinWindowBatches = 4;
constexpr double kWaitHigh = 0.10;  // consumer waited more: the workers are the bottleneck
constexpr double kWaitLow = 0.02;   // consumer waited less ...
constexpr double kIdleHigh = 0.5;   // ... and the workers idled more: one fewer will do
constexpr double kGain = 0.05;      // a worker more is kept for this much more rows/s
constexpr double kLoss = 0.03;      // a worker fewer is kept unless rows/s fell by more
constexpr uint32_t kMaxBackoff = 64;
constexpr uint32_t kWarmupWindows = 2;  // start-up: opening, first reads, queues filling
constexpr double kSaturated = 0.85;  // CPU use, as a share of the budget's cores, that saturates them

std::string Fmt(const char* f, double a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}
}  // namespace

nlohmann::json AutotuneOptions::ToJson() const {
  return {{"enabled", enabled}, {"cpu_budget", cpu_budget}, {"interval", interval}};
}

Result<AutotuneOptions> AutotuneOptions::FromJson(const nlohmann::json& j) {
  AutotuneOptions o;
  if (j.is_boolean()) {
    o.enabled = j.get<bool>();
    return o;
  }
  if (!j.is_object()) return Status::InvalidArgument("plan: 'autotune' must be a bool or an object, got " + j.dump());
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const auto& v = it.value();
    if (k == "enabled") {
      if (!v.is_boolean()) return Status::InvalidArgument("plan: 'autotune.enabled' must be a bool, got " + v.dump());
      o.enabled = v.get<bool>();
    } else if (k == "cpu_budget" || k == "interval") {
      const uint64_t high = k == "cpu_budget" ? 1024 : 0x7fffffff;
      if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0) || v.get<uint64_t>() > high) {
        return Status::InvalidArgument("plan: 'autotune." + k + "' must be an integer in [0, " + std::to_string(high) +
                                       "], got " + v.dump());
      }
      (k == "cpu_budget" ? o.cpu_budget : o.interval) = v.get<uint32_t>();
    } else {
      return Status::InvalidArgument("plan: unknown key 'autotune." + k + "' (expected enabled, cpu_budget, interval)");
    }
  }
  return o;
}

uint32_t AffinityCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

Autotuner::Autotuner(const AutotuneOptions& options, uint32_t max_workers, uint32_t max_depth,
                     uint32_t start_workers, uint32_t cores)
    : options_(options),
      max_workers_(std::max<uint32_t>(1, max_workers)),
      max_depth_(std::max<uint32_t>(2, max_depth)),
      cores_(std::max<uint32_t>(1, cores)) {
  setting_ = For(std::clamp<uint32_t>(start_workers, 1, max_workers_));
}

AutotuneSetting Autotuner::For(uint32_t workers) const {
  return AutotuneSetting{workers, std::clamp<uint32_t>(2 * workers, 2, max_depth_)};
}

std::optional<AutotuneSetting> Autotuner::Change(uint32_t workers, const AutotuneSample& s, const std::string& why) {
  const AutotuneSetting next = For(workers);
  std::string d = Fmt("t=%.2fs", s.t_s) + " workers " + std::to_string(setting_.workers) + "->" +
                  std::to_string(next.workers) + " queue_depth " + std::to_string(setting_.queue_depth) + "->" +
                  std::to_string(next.queue_depth) + ": " + why;
  if (decisions_.size() == kKeep) decisions_.erase(decisions_.begin());
  decisions_.push_back(std::move(d));
  num_decisions_++;
  setting_ = next;
  return next;
}

std::optional<AutotuneSetting> Autotuner::Observe(const AutotuneSample& s) {
  const double dt = s.t_s - last_.t_s;
  const uint64_t batches = s.batches - last_.batches;
  if (options_.interval > 0 ? batches < options_.interval : (dt < kMinWindowS || batches < kMinWindowBatches)) {
    return std::nullopt;
  }
  const AutotuneSample prev = last_;
  last_ = s;
  if (skipped_ < kWarmupWindows || dt <= 0) {
    skipped_++;
    return std::nullopt;
  }
  const double rate = static_cast<double>(s.rows - prev.rows) / dt;
  const double wait = (s.consumer_wait_s - prev.consumer_wait_s) / dt;
  const double idle = (s.workers_blocked_s - prev.workers_blocked_s) / (dt * setting_.workers);
  const double cpu = (s.cpu_s - prev.cpu_s) / dt;  // cores in use
  const bool saturated = cpu >= kSaturated * cores_;
  const std::string seen = Fmt("consumer waited %.0f%%", 100 * wait) + Fmt(" of %.2fs", dt) +
                           Fmt(" at %.0f rows/s", rate) + Fmt(", %.1f cores busy", cpu);
  if (trial_from_) {
    const AutotuneSetting from = *trial_from_;
    trial_from_.reset();
    const bool grew = setting_.workers > from.workers;
    const bool keep = rate >= trial_rate_ * trial_keep_;
    if (keep) {
      if (grew) backoff_ = 2;
      else fewer_backoff_ = 2;
      return std::nullopt;
    }
    uint32_t& cooldown = grew ? cooldown_ : fewer_cooldown_;
    uint32_t& backoff = grew ? backoff_ : fewer_backoff_;
    cooldown = backoff;
    backoff = std::min(kMaxBackoff, backoff * 2);
    return Change(from.workers, s, "back: " + seen + Fmt(" (%.0f before)", trial_rate_));
  }
  if (cooldown_ > 0) cooldown_--;
  if (fewer_cooldown_ > 0) fewer_cooldown_--;
  auto start_trial = [&](uint32_t workers, double keep, const std::string& why) {
    trial_from_ = setting_;
    trial_rate_ = rate;
    trial_keep_ = keep;
    return Change(workers, s, why + seen);
  };
  if (wait > kWaitHigh) {
    // The workers are the bottleneck.
    if (setting_.workers < max_workers_ && (setting_.workers < cores_ || !saturated) && cooldown_ == 0) {
      return start_trial(setting_.workers + 1, 1 + kGain, "try: ");
    }
    if (setting_.workers > cores_ && saturated && fewer_cooldown_ == 0) {
      // More threads than cores, all busy: one fewer makes as many rows with less switching.
      return start_trial(setting_.workers - 1, 1.0, "try fewer, more workers than cores: ");
    }
    return std::nullopt;
  }
  if (wait < kWaitLow && idle > kIdleHigh && setting_.workers > 1 && fewer_cooldown_ == 0) {
    return start_trial(setting_.workers - 1, 1 - kLoss, "try: " + Fmt("workers idle %.0f%%: ", 100 * idle));
  }
  return std::nullopt;
}

}  // namespace mindrecord
