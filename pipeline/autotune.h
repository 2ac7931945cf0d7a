// Autotune: the runtime picks and adjusts how many worker threads run and
// how many batches are prepared ahead (the queue depth) while it runs, from
// the statistics it keeps (rows handed out, the time the consumer waited for
// a batch, the time workers waited for a free slot). The output never
// depends on these settings (tasks are numbered and consumed in order), so
// rows, their order and the resume state are the same whatever it picks.
//
// How it decides (hill climbing on measured throughput, one step at a time):
// over each window (the plan's interval in batches, or at least 50 ms and 4
// batches; the first two are skipped as start-up), if the consumer waited for batches for more than 10% of the
// window the workers are the bottleneck. Then, if the process's CPU use is
// below 85% of the budget's cores or there are fewer workers than cores,
// one more worker is tried (up to the most it may run) and kept if the next
// window's rows/s rose by 5% or more, else taken back, and no larger count
// is tried for a back-off that doubles with each failed try; with the cores
// saturated and at least as many workers as cores, no worker is added (it
// would only share the same cores). With more workers than cores (num_workers
// above the budget) and the cores saturated, one fewer is tried, kept unless
// rows/s fell. If the consumer hardly waited (< 2%) while the workers were
// idle more than half the time, one fewer is tried too, kept unless rows/s
// fell by more than 3%. Failed tries of fewer back off on their own doubling count,
// which a kept worker more does not reset. The queue depth follows: twice
// the workers (at least 2), within the runtime's slots; the plan's
// queue_bytes still caps the bytes prepared ahead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"

namespace mindrecord {

// The plan's "autotune" key: false (default), true, or an object of these
// fields ({"enabled": true, "cpu_budget": 2, "interval": 0}).
struct AutotuneOptions {
  bool enabled = false;
  // Most worker threads it may run; 0: the cores in the process's CPU
  // affinity mask (what taskset / cgroups cpusets allow).
  uint32_t cpu_budget = 0;
  // Batches between decisions (MindSpore's set_autotune_interval, in
  // steps); 0: a window of at least 50 ms and 4 batches.
  uint32_t interval = 0;

  nlohmann::json ToJson() const;
  static Result<AutotuneOptions> FromJson(const nlohmann::json& j);
};

// Cores in this process's CPU affinity mask (at least 1).
uint32_t AffinityCores();

// Cumulative counters of a running pipeline at one moment.
struct AutotuneSample {
  double t_s = 0;                // since the pipeline started
  uint64_t rows = 0;             // rows handed out
  uint64_t batches = 0;          // batches handed out
  double consumer_wait_s = 0;    // Next() waiting for a batch
  double workers_blocked_s = 0;  // workers waiting for work, summed over threads
  double cpu_s = 0;              // CPU time of the process (all its threads)
};

struct AutotuneSetting {
  uint32_t workers = 1;
  uint32_t queue_depth = 2;
  bool operator==(const AutotuneSetting& o) const { return workers == o.workers && queue_depth == o.queue_depth; }
};

// Thread safety: not thread-safe; the runtime calls it under its lock.
class Autotuner {
 public:
  // `max_workers` >= 1 (the threads it may run: the CPU budget, or
  // num_workers when that is more), `max_depth` >= 2 (the slots), `cores`
  // >= 1 (the CPU budget: cores the process may use).
  Autotuner(const AutotuneOptions& options, uint32_t max_workers, uint32_t max_depth, uint32_t start_workers,
            uint32_t cores);

  AutotuneSetting setting() const { return setting_; }
  // Fed after each batch handed out; returns the new setting when it
  // changes one. Each change is also described in decisions().
  std::optional<AutotuneSetting> Observe(const AutotuneSample& s);
  // What it decided, oldest first (the last kKeep), e.g. "t=0.52s workers
  // 2->3 queue_depth 4->6: consumer waited 35% of 0.10s at 812 rows/s".
  const std::vector<std::string>& decisions() const { return decisions_; }
  uint64_t num_decisions() const { return num_decisions_; }
  uint32_t max_workers() const { return max_workers_; }

 private:
  static constexpr size_t kKeep = 32;
  AutotuneSetting For(uint32_t workers) const;
  std::optional<AutotuneSetting> Change(uint32_t workers, const AutotuneSample& s, const std::string& why);

  AutotuneOptions options_;
  uint32_t max_workers_, max_depth_, cores_;
  AutotuneSetting setting_;
  AutotuneSample last_;
  uint32_t skipped_ = 0;  // start-up windows skipped so far
  // A change on trial: the setting before it and the rows/s it had.
  std::optional<AutotuneSetting> trial_from_;
  double trial_rate_ = 0;
  double trial_keep_ = 0;  // the share of trial_rate_ the trial must reach to be kept
  uint32_t cooldown_ = 0, backoff_ = 2;            // windows before growing again
  uint32_t fewer_cooldown_ = 0, fewer_backoff_ = 2;  // windows before trying fewer again
  std::vector<std::string> decisions_;
  uint64_t num_decisions_ = 0;
};

}  // namespace mindrecord
