// Core engine throughput: write, sequential read and random-order read of
// ~1 KiB rows, each compared with copying the same bytes in memory (the
// ceiling), measured in the same process. Rows: MR_BENCH_ROWS (default 100000).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>

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

void BM_SequentialRead(benchmark::State& state) {
  ReaderOptions ro;
  ro.io_mode = static_cast<IoMode>(state.range(0));
  auto r = *ShardReader::Open(Written(), ro);
  for (auto _ : state) {
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

void BM_RandomRead(benchmark::State& state) {
  ReaderOptions ro;
  ro.io_mode = static_cast<IoMode>(state.range(0));
  auto r = *ShardReader::Open(Written(), ro);
  std::vector<uint64_t> order(r->num_rows());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  for (auto _ : state) {
    uint64_t bytes = 0;
    for (uint64_t id : order) {
      auto row = r->ReadRow(id);
      if (!row.ok()) state.SkipWithError(row.status().ToString().c_str());
      bytes += row->Get("text").bytes().size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  SetCounters(state, r->num_rows());
}

BENCHMARK(BM_MemcpyCeiling)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Write)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SequentialRead)->Arg(0)->Arg(1)->ArgName("mmap")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandomRead)->Arg(0)->Arg(1)->ArgName("mmap")->Unit(benchmark::kMillisecond);

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
    std::printf("\nthroughput as a fraction of copying the same bytes in memory (%.0f MB/s):\n", ceiling / 1e6);
    for (const auto& [name, rate] : rates_) std::printf("  %-28s %8.1f MB/s  %6.3f\n", name.c_str(), rate / 1e6, rate / ceiling);
  }

 private:
  std::map<std::string, double> rates_;
};

}  // namespace
}  // namespace mindrecord

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  mindrecord::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::filesystem::remove_all(mindrecord::Dir());
  return 0;
}
