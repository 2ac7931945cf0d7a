#include "benchmarks/suite/harness.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace mindrecord::bench {

uint64_t SuiteOptions::Scaled(uint64_t n, uint64_t min) const {
  return std::max<uint64_t>(min, static_cast<uint64_t>(std::llround(static_cast<double>(n) * scale)));
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void Results::Add(Measurement m) {
  const double med = Median(m.seconds);
  char cpu[48] = "";
  if (!m.cpu_seconds.empty()) std::snprintf(cpu, sizeof cpu, "  cpu %.3f s", Median(m.cpu_seconds));
  std::fprintf(stderr, "  %-8s %-26s %-30s %9.3f s  %12.0f %s/s  %8.1f MB/s%s\n", m.workload.c_str(), m.task.c_str(),
               m.system.c_str(), med, med > 0 ? m.items / med : 0.0, m.unit.c_str(),
               med > 0 ? m.bytes / med / 1e6 : 0.0, cpu);
  all_.push_back(std::move(m));
}

Status Results::Save(const std::string& path) const {
  nlohmann::json j = info_;
  j["measurements"] = nlohmann::json::array();
  for (const auto& m : all_) {
    j["measurements"].push_back({{"workload", m.workload}, {"task", m.task}, {"system", m.system}, {"role", m.role},
                                 {"unit", m.unit}, {"items", m.items}, {"bytes", m.bytes}, {"seconds", m.seconds},
                                 {"median_s", Median(m.seconds)}, {"extra", m.extra}});
    if (!m.cpu_seconds.empty()) {
      j["measurements"].back()["cpu_seconds"] = m.cpu_seconds;
      j["measurements"].back()["median_cpu_s"] = Median(m.cpu_seconds);
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ofstream f(path);
  f << j.dump(1) << "\n";
  if (!f) return Status::IOError(path + ": cannot write results");
  return Status::OK();
}

std::vector<double> TimeRuns(const SuiteOptions& o, const std::function<void()>& fn,
                             const std::function<void()>& prepare) {
  std::vector<double> out;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    if (prepare) prepare();
    auto t0 = std::chrono::steady_clock::now();
    fn();
    auto t1 = std::chrono::steady_clock::now();
    if (i >= o.warmup) out.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  return out;
}

namespace {

double ProcessCpuSeconds() {
  struct rusage u;
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

}  // namespace

std::vector<std::vector<double>> TimeInterleaved(const SuiteOptions& o, const std::vector<std::function<void()>>& fns,
                                                 std::vector<std::vector<double>>* cpu,
                                                 const std::function<void(size_t)>& prepare) {
  std::vector<std::vector<double>> out(fns.size());
  if (cpu) cpu->assign(fns.size(), {});
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    for (size_t k = 0; k < fns.size(); ++k) {
      if (prepare) prepare(k);
      const double c0 = ProcessCpuSeconds();
      auto t0 = std::chrono::steady_clock::now();
      fns[k]();
      auto t1 = std::chrono::steady_clock::now();
      const double c1 = ProcessCpuSeconds();
      if (i < o.warmup) continue;
      out[k].push_back(std::chrono::duration<double>(t1 - t0).count());
      if (cpu) (*cpu)[k].push_back(c1 - c0);
    }
  }
  return out;
}

void Check(const Status& s, const std::string& what) {
  if (s.ok()) return;
  std::fprintf(stderr, "formats_bench: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(1);
}

DiskUsage UsageOf(const std::vector<std::string>& paths) {
  DiskUsage u;
  for (const auto& p : paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) continue;
    ++u.files;
    u.bytes += static_cast<uint64_t>(st.st_size);
    u.allocated += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return u;
}

void RemoveAll(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

uint64_t ProcStatusKb(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(f, line))
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':')
      return std::strtoull(line.c_str() + n + 1, nullptr, 10);
  return 0;
}

}  // namespace mindrecord::bench
