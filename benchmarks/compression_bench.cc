// Per-row blob compression on text-like ~1 KiB rows: file size, sequential
// and shuffled read throughput for none, lz4, zstd:3 and zstd:3+dict, and the
// size of the same records as one TFRecord-style file compressed whole with
// zstd -3 (size only: such a file cannot be read at random).
// Sizes: data_MB is header JSON + used page bytes + index (what the rows
// cost); file_MB is the file as on disk, page slots padded as MindSpore pads
// them. Rows: MR_BENCH_ROWS (default 200000).
#include <benchmark/benchmark.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>

#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord {

const std::string& Dir();

namespace {

uint64_t NumRows() {
  const char* env = std::getenv("MR_BENCH_ROWS");
  return env ? std::strtoull(env, nullptr, 10) : 200000;
}

}  // namespace

const std::string& Dir() {
  static std::string dir = [] {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/mr-compression-bench-XXXXXX";
    return std::string(mkdtemp(tmpl.data()));
  }();
  return dir;
}

namespace {

// Text with a Zipf-like vocabulary of 4000 made-up words, numbers and
// punctuation: compresses about as well as English prose.
const std::vector<Row>& Rows() {
  static std::vector<Row> rows = [] {
    std::mt19937_64 rng(7);
    static const char* syl[] = {"ka", "to", "ri", "men", "sa", "lo", "de", "ta", "ni", "ver", "qu", "an",
                                "el", "ost", "ra", "bi", "mo", "ul", "pe", "ch", "st", "in", "or", "es"};
    std::vector<std::string> vocab(4000);
    for (auto& w : vocab) {
      int n = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) w += syl[rng() % 24];
    }
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<Row> out;
    out.reserve(NumRows());
    for (uint64_t i = 0; i < NumRows(); ++i) {
      std::string text;
      while (text.size() < 1000) {
        size_t w = static_cast<size_t>(std::pow(4000.0, u(rng))) - 1;  // Zipf-like rank
        text += vocab[w];
        uint64_t p = rng() % 20;
        text += p == 0 ? ", " : p == 1 ? ". " : p == 2 ? " " + std::to_string(rng() % 2000) + " " : " ";
      }
      out.push_back(Row{{"id", Value::Int(static_cast<int64_t>(i))},
                        {"label", Value::Int(static_cast<int64_t>(rng() % 1000))},
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

const char* kSpecs[] = {"none", "lz4", "zstd:3", "zstd:3+dict"};

struct Written {
  std::string path;
  uint64_t file_bytes = 0;  // data file + index, as on disk (pages padded to their slots)
  uint64_t data_bytes = 0;  // header JSON + used page bytes + index: the size without slot padding
  uint64_t header_bytes = 0, blob_bytes = 0, raw_bytes = 0, index_bytes = 0;  // data_bytes by part
  double write_seconds = 0;
};

// Each codec's dataset, written once.
const Written& Dataset(int spec) {
  static std::map<int, Written> done;
  auto it = done.find(spec);
  if (it != done.end()) return it->second;
  Written w;
  w.path = Dir() + "/text-" + std::to_string(spec);
  WriterOptions o;
  o.compression = *ParseCompression(kSpecs[spec]);
  o.overwrite = true;
  o.header_size = 1 << 20;  // room for a 64 KiB dictionary
  o.page_size = 4 << 20;
  auto schema = *Schema::FromUserJsonString(R"({"id":{"type":"int64"},"label":{"type":"int32"},"text":{"type":"bytes"}})");
  auto start = std::chrono::steady_clock::now();
  auto writer = *ShardWriter::Create(w.path, schema, o);
  const auto& rows = Rows();
  for (size_t i = 0; i < rows.size(); i += 1000) {
    std::vector<Row> batch(rows.begin() + i, rows.begin() + std::min(rows.size(), i + 1000));
    if (!writer->WriteRows(batch).ok()) std::abort();
  }
  if (!writer->Commit().ok()) std::abort();
  w.write_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const uint64_t db = std::filesystem::file_size(w.path + ".db");
  w.file_bytes = std::filesystem::file_size(w.path) + db;
  auto reader = *ShardReader::Open(w.path);
  w.header_bytes = reader->header(0).Serialize().size();
  w.index_bytes = db;
  for (const auto& p : reader->header(0).pages) (p.is_blob ? w.blob_bytes : w.raw_bytes) += p.used_bytes;
  w.data_bytes = w.header_bytes + w.index_bytes + w.blob_bytes + w.raw_bytes;
  return done[spec] = w;
}

void SetCounters(benchmark::State& state, int spec, uint64_t rows) {
  const Written& w = Dataset(spec);
  state.SetBytesProcessed(static_cast<int64_t>(PayloadBytes() * rows / NumRows()));
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.counters["file_MB"] = static_cast<double>(w.file_bytes) / 1e6;
  state.counters["data_MB"] = static_cast<double>(w.data_bytes) / 1e6;
  state.counters["vs_none"] = static_cast<double>(w.data_bytes) / static_cast<double>(Dataset(0).data_bytes);
  state.counters["write_s"] = w.write_seconds;
  state.counters["blob_MB"] = static_cast<double>(w.blob_bytes) / 1e6;
  state.counters["raw_MB"] = static_cast<double>(w.raw_bytes) / 1e6;
  state.counters["index_MB"] = static_cast<double>(w.index_bytes) / 1e6;
  state.counters["header_MB"] = static_cast<double>(w.header_bytes) / 1e6;
  state.SetLabel(kSpecs[spec]);
}

void BM_ReadSequential(benchmark::State& state) {
  const int spec = static_cast<int>(state.range(0));
  auto reader = *ShardReader::Open(Dataset(spec).path);
  for (auto _ : state) {
    uint64_t bytes = 0;
    Status st = reader->Scan(0, reader->num_rows(), nullptr, [&](uint64_t, Row&& r) {
      bytes += r.Get("text").bytes().size();
      return Status::OK();
    });
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
    benchmark::DoNotOptimize(bytes);
  }
  SetCounters(state, spec, reader->num_rows() * state.iterations());
}

void BM_ReadShuffled(benchmark::State& state) {
  const int spec = static_cast<int>(state.range(0));
  auto reader = *ShardReader::Open(Dataset(spec).path);
  std::vector<uint64_t> order(reader->num_rows());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(3));
  for (auto _ : state) {
    uint64_t bytes = 0;
    for (uint64_t id : order) {
      auto r = reader->ReadRow(id);
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        break;
      }
      bytes += r->Get("text").bytes().size();
    }
    benchmark::DoNotOptimize(bytes);
  }
  SetCounters(state, spec, order.size() * state.iterations());
}

// The same records as one TFRecord-style file (uint64 length, uint32 crc,
// record, uint32 crc), compressed whole with zstd -3.
void BM_TfrecordWholeFileZstd(benchmark::State& state) {
  std::string file;
  for (const auto& r : Rows()) {
    std::string rec = std::to_string(r.Get("id").as_int()) + "," + std::to_string(r.Get("label").as_int()) + "," +
                      r.Get("text").bytes();
    uint64_t n = rec.size();
    file.append(reinterpret_cast<const char*>(&n), 8);
    file.append(4, '\x5a');
    file += rec;
    file.append(4, '\xa5');
  }
  std::string out(ZSTD_compressBound(file.size()), '\0');
  size_t n = 0;
  for (auto _ : state) {
    n = ZSTD_compress(out.data(), out.size(), file.data(), file.size(), 3);
    if (ZSTD_isError(n)) state.SkipWithError(ZSTD_getErrorName(n));
  }
  state.SetBytesProcessed(static_cast<int64_t>(file.size() * state.iterations()));
  state.counters["file_MB"] = static_cast<double>(n) / 1e6;
  state.counters["raw_MB"] = static_cast<double>(file.size()) / 1e6;
  state.counters["vs_none"] = static_cast<double>(n) / static_cast<double>(Dataset(0).data_bytes);
  for (int s = 1; s < 4; ++s) {
    state.counters[std::string(kSpecs[s]) + "_vs_this"] =
        static_cast<double>(Dataset(s).data_bytes) / static_cast<double>(n);
  }
}

BENCHMARK(BM_ReadSequential)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReadShuffled)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TfrecordWholeFileZstd)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mindrecord

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ec;
  std::filesystem::remove_all(mindrecord::Dir(), ec);  // the datasets are large
  return 0;
}
