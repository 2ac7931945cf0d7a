// The benchmark suite's harness: options, timing (warm-up + repeated runs),
// results collected as JSON for the report, and small shared helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"

namespace mindrecord::bench {

struct SuiteOptions {
  double scale = 1.0;   // multiplies every workload size
  int runs = 5;         // measured runs per figure (the median is reported)
  int warmup = 1;       // untimed runs before them
  std::string work_dir = "/tmp/mr_bench";  // generated data (kept between invocations)
  // The measurements as JSON (benchmarks/run.sh gives its results folder);
  // empty: the table on stdout only, so that a run of one workload never
  // overwrites the committed results.
  std::string out;
  std::vector<std::string> workloads = {"records", "images", "open"};
  int max_workers = 2;  // pipeline workloads run at 1..max_workers (powers of two)
  // records: only the MindRecord and TFRecord writers (for profiling the write path).
  bool records_write_only = false;

  // Workload sizes at this scale (at least a handful each).
  uint64_t Scaled(uint64_t n, uint64_t min = 16) const;
};

// One figure: `items` processed (rows, images, batches) and `bytes` moved per
// run, timed `seconds` per measured run.
struct Measurement {
  std::string workload;  // "records", "images", "open"
  std::string task;      // "write", "scan", "shuffled epoch", ...
  std::string system;    // "MindRecord (pread)", "TFRecord + .idx", "plain files", "memcpy", ...
  std::string role;      // "ours", "baseline", "ceiling"
  std::string unit;      // what an item is: "rows", "images", "batches of 256"
  uint64_t items = 0;
  uint64_t bytes = 0;
  std::vector<double> seconds;
  std::vector<double> cpu_seconds;  // process CPU time per measured run; empty: not measured
  nlohmann::json extra = nlohmann::json::object();  // e.g. peak RSS
};

class Results {
 public:
  void Add(Measurement m);
  void Set(const std::string& key, nlohmann::json value) { info_[key] = std::move(value); }
  Status Save(const std::string& path) const;

 private:
  std::vector<Measurement> all_;
  nlohmann::json info_ = nlohmann::json::object();
};

// Runs `prepare` (untimed) then `fn`, warmup + runs times; returns the
// measured durations.
std::vector<double> TimeRuns(const SuiteOptions& o, const std::function<void()>& fn,
                             const std::function<void()>& prepare = {});

// Runs every fn once per round (warmup + runs rounds, in turn), so a change
// of machine load hits all of them alike; returns each fn's measured durations.
// With `cpu`, also each fn's process CPU time (user + system, all threads)
// per measured run: at full load of every core, wall time alone cannot say
// which system does less work. `prepare(k)` (untimed) runs before fns[k].
std::vector<std::vector<double>> TimeInterleaved(const SuiteOptions& o, const std::vector<std::function<void()>>& fns,
                                                 std::vector<std::vector<double>>* cpu = nullptr,
                                                 const std::function<void(size_t)>& prepare = {});

double Median(std::vector<double> v);

// Exits with the status message when not OK (a benchmark cannot go on).
void Check(const Status& s, const std::string& what);
template <typename T>
T Unwrap(Result<T> r, const std::string& what) {
  Check(r.status(), what);
  return std::move(r).value();
}

// Sum of the sizes of `paths` (apparent bytes) and of their allocated blocks.
struct DiskUsage {
  uint64_t files = 0, bytes = 0, allocated = 0;
};
DiskUsage UsageOf(const std::vector<std::string>& paths);

// Removes `path` (file or tree) if present.
void RemoveAll(const std::string& path);

// kB from a /proc/self/status line ("VmHWM", "VmRSS").
uint64_t ProcStatusKb(const char* key);

// The workloads; each adds its figures to `results`.
void RunRecordsWorkload(const SuiteOptions& o, Results& results);
void RunImagesWorkload(const SuiteOptions& o, Results& results);
void RunOpenWorkload(const SuiteOptions& o, Results& results, const std::string& self_exe);
// The child side of the open workload: opens `path` with `system`, prints JSON.
int OpenChildMain(const std::string& system, const std::string& path);

}  // namespace mindrecord::bench
