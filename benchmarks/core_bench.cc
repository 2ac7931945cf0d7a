// Core engine throughput: write, sequential read and random-order read of
// ~1 KiB rows, each compared with copying the same bytes in memory (the
// ceiling), measured in the same process. Reads run with each io mode; "cold"
// pread drops the file's pages from the page cache before each pass
// (posix_fadvise DONTNEED), as direct I/O never uses them. Reads are timed by
// the wall clock (waiting for the disk counts) and also reported as a ratio to
// warm pread of the same workload. Rows: MR_BENCH_ROWS (default 100000).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <thread>

#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

uint64_t NumRows() {
  const char* env = std::getenv("MR_BENCH_ROWS");
  return env ? std::strtoull(env, nullptr, 10) : 100000;
}

const std::string& Dir() {
  static std::string dir = [] {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/mr-core-bench-XXXXXX";
    return std::string(mkdtemp(tmpl.data()));
  }();
  return dir;
}

const std::vector<Row>& Rows() {
  static std::vector<Row> rows = [] {
    std::mt19937_64 rng(1);
    static const char* words[] = {"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "data ", "set "};
    std::vector<Row> out;
    for (uint64_t i = 0; i < NumRows(); ++i) {
      std::string text;
      while (text.size() < 1000) text += words[rng() % 10];
      out.push_back(Row{{"id", Value::Int(static_cast<int64_t>(i))}, {"label", Value::Int(static_cast<int64_t>(rng() % 1000))},
                        {"text", Value::Bytes(text)}});
    }
    return out;
  }();
  return rows;
}

uint64_t PayloadBytes() {
  static uint64_t n = [] {
    uint64_t b = 0;
    for (const auto& r : Rows()) b += r.Get("text").bytes().size() + 16;
    return b;
  }();
  return n;
}

Schema BenchSchema() {
  return *Schema::FromUserJsonString(R"({"id":{"type":"int64"},"label":{"type":"int32"},"text":{"type":"bytes"}})");
}

std::string Written() {
  static std::string path = [] {
    std::string p = Dir() + "/read.mindrecord";
    WriterOptions o;
    o.index_fields = std::vector<std::string>{"label"};
    auto w = *ShardWriter::Create(p, BenchSchema(), o);
    const auto& rows = Rows();
    for (size_t i = 0; i < rows.size(); i += 1000) {
      std::vector<Row> batch(rows.begin() + i, rows.begin() + std::min(rows.size(), i + 1000));
      (void)w->WriteRows(batch);
    }
    (void)w->Commit();
    return p;
  }();
  return path;
}

void SetCounters(benchmark::State& state, uint64_t rows) {
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * PayloadBytes()));
}

void BM_MemcpyCeiling(benchmark::State& state) {
  const auto& rows = Rows();
  std::vector<char> dst(2048);
  for (auto _ : state) {
    for (const auto& r : rows) {
      const std::string& t = r.Get("text").bytes();
      std::memcpy(dst.data(), t.data(), t.size());
      benchmark::DoNotOptimize(dst.data());
    }
  }
  SetCounters(state, rows.size());
}

void BM_Write(benchmark::State& state) {
  const auto& rows = Rows();
  int round = 0;
  for (auto _ : state) {
    std::string p = Dir() + "/w" + std::to_string(round++);
    auto w = *ShardWriter::Create(p, BenchSchema(), WriterOptions{});
    for (size_t i = 0; i < rows.size(); i += 1000) {
      std::vector<Row> batch(rows.begin() + i, rows.begin() + std::min(rows.size(), i + 1000));
      if (!w->WriteRows(batch).ok()) state.SkipWithError("write failed");
    }
    if (!w->Commit().ok()) state.SkipWithError("commit failed");
    state.PauseTiming();
    std::filesystem::remove(p);
    std::filesystem::remove(p + ".db");
    state.ResumeTiming();
  }
  SetCounters(state, rows.size());
}

// Evicts the dataset's pages from the page cache (clean pages only).
void DropFromPageCache(const ShardReader& r) {
  for (const auto& path : r.shard_paths()) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
}

// The benchmark dataset opened in `mode` (explicit: the default, auto,
// would pick pread here); nullptr after marking the benchmark skipped.
std::unique_ptr<ShardReader> OpenWritten(benchmark::State& state, IoMode mode) {
  ReaderOptions ro;
  ro.io_mode = mode;
  auto opened = ShardReader::Open(Written(), ro);
  if (!opened.ok()) {
    state.SkipWithError(opened.status().ToString().c_str());
    return nullptr;
  }
  return std::move(opened).value();
}

// Row ids 0..n-1 in a fixed random order.
std::vector<uint64_t> ShuffledIds(uint64_t n) {
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  return order;
}

void BM_SequentialRead(benchmark::State& state, IoMode mode, bool cold) {
  auto r = OpenWritten(state, mode);
  if (!r) return;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      DropFromPageCache(*r);
      state.ResumeTiming();
    }
    uint64_t bytes = 0;
    Status st = r->Scan(0, r->num_rows(), nullptr, [&](uint64_t, Row&& row) {
      bytes += row.Get("text").bytes().size();
      return Status::OK();
    });
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
    benchmark::DoNotOptimize(bytes);
  }
  SetCounters(state, r->num_rows());
}

// Random order split over `threads` threads sharing one reader (as pipeline
// workers do), so several reads are in flight at once.
void BM_RandomReadThreads(benchmark::State& state, IoMode mode, int threads) {
  auto r = OpenWritten(state, mode);
  if (!r) return;
  const std::vector<uint64_t> order = ShuffledIds(r->num_rows());
  for (auto _ : state) {
    std::atomic<bool> failed{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        uint64_t bytes = 0;
        for (size_t i = t; i < order.size(); i += threads) {
          auto row = r->ReadRow(order[i]);
          if (!row.ok()) {
            failed = true;
            return;
          }
          bytes += row->Get("text").bytes().size();
        }
        benchmark::DoNotOptimize(bytes);
      });
    }
    for (auto& th : pool) th.join();
    if (failed) state.SkipWithError("a read failed");
  }
  SetCounters(state, r->num_rows());
}

// The same random order through ReadRows, `batch` rows per call (as the
// pipeline reads a task): a direct reader keeps up to direct_rows_in_flight
// reads in flight instead of one row's two parts.
void BM_RandomReadBatched(benchmark::State& state, IoMode mode, size_t batch) {
  auto r = OpenWritten(state, mode);
  if (!r) return;
  const std::vector<uint64_t> order = ShuffledIds(r->num_rows());
  for (auto _ : state) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < order.size(); i += batch) {
      std::vector<uint64_t> ids(order.begin() + i, order.begin() + std::min(order.size(), i + batch));
      Status st = r->ReadRows(ids, nullptr, [&](size_t, Result<Row>&& row) {
        if (!row.ok()) return row.status();
        bytes += row->Get("text").bytes().size();
        return Status::OK();
      });
      if (!st.ok()) {
        state.SkipWithError(st.ToString().c_str());
        break;
      }
    }
    benchmark::DoNotOptimize(bytes);
  }
  SetCounters(state, r->num_rows());
}

void BM_RandomRead(benchmark::State& state, IoMode mode, bool cold) {
  auto r = OpenWritten(state, mode);
  if (!r) return;
  const std::vector<uint64_t> order = ShuffledIds(r->num_rows());
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      DropFromPageCache(*r);
      state.ResumeTiming();
    }
    uint64_t bytes = 0;
    for (uint64_t id : order) {
      auto row = r->ReadRow(id);
      if (!row.ok()) {
        state.SkipWithError(row.status().ToString().c_str());
        break;
      }
      bytes += row->Get("text").bytes().size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  SetCounters(state, r->num_rows());
}

BENCHMARK(BM_MemcpyCeiling)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Write)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SequentialRead, pread, IoMode::kPread, false)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SequentialRead, pread_cold, IoMode::kPread, true)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SequentialRead, mmap, IoMode::kMmap, false)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SequentialRead, direct, IoMode::kDirect, false)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomRead, pread, IoMode::kPread, false)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomRead, pread_cold, IoMode::kPread, true)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomRead, mmap, IoMode::kMmap, false)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomRead, direct, IoMode::kDirect, false)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomReadBatched, pread, IoMode::kPread, 256)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomReadBatched, mmap, IoMode::kMmap, 256)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomReadBatched, direct, IoMode::kDirect, 256)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomReadThreads, pread, IoMode::kPread, 8)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RandomReadThreads, direct, IoMode::kDirect, 8)->UseRealTime()->Unit(benchmark::kMillisecond);

// Prints each result's throughput as a fraction of the in-memory copy.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      auto it = r.counters.find("bytes_per_second");
      if (it != r.counters.end()) rates_[r.benchmark_name()] = it->second.value;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    double ceiling = rates_["BM_MemcpyCeiling"];
    if (ceiling <= 0) return;
    std::printf("\nthroughput as a fraction of copying the same bytes in memory (%.0f MB/s),\n"
                "and reads as a ratio to (warm) pread of the same workload:\n",
                ceiling / 1e6);
    std::printf("  %-40s %8s  %6s  %6s\n", "benchmark", "MB/s", "memcpy", "pread");
    for (const auto& [name, rate] : rates_) {
      std::printf("  %-40s %8.1f  %6.3f", name.c_str(), rate / 1e6, rate / ceiling);
      // "BM_X/<mode>/real_time" against "BM_X/pread/real_time".
      const auto a = name.find('/'), b = name.find('/', a + 1);
      if (a != std::string::npos) {
        const std::string rest = b == std::string::npos ? "" : name.substr(b);
        auto base = rates_.find(name.substr(0, a) + "/pread" + rest);
        if (base != rates_.end() && base->second > 0) std::printf("  %6.3f", rate / base->second);
      }
      std::printf("\n");
    }
  }

 private:
  std::map<std::string, double> rates_;
};

}  // namespace
}  // namespace mindrecord

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  mindrecord::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::filesystem::remove_all(mindrecord::Dir());
  return 0;
}
