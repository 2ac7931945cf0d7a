// Issue 4's two pipeline benchmarks, each against its ceiling measured in the
// same process:
//  (a) small records (~1 KiB): rows/s through the Pipeline in sequential and
//      shuffled (global) order, against copying the same bytes in memory.
//      Counters: vs_memcpy, and shuffled_vs_sequential on the shuffled rows
//      (aim: >= 0.8).
//  (b) images (~100 KB JPEGs of 960x720): Decode + RandomResizedCrop(224) +
//      flip + Normalize through the Pipeline at 1 and 2 workers, against a bare
//      single-thread loop that decodes and resizes the same JPEG bytes already
//      in memory (the CPU ceiling). Counter per_worker_vs_bare = (images/s /
//      workers) / bare images/s (aim: >= 0.9). The pipeline fuses Decode with
//      the crop (DCT-scaled decode), which does less work than the bare loop's
//      full decode; per_worker_vs_chain compares with the same fused op chain
//      run in a bare loop too.
// Every pipeline figure is one epoch per iteration (Open to the last batch),
// by the wall clock, page cache warm. Sizes: MR_BENCH_ROWS records (default
// 100000), MR_BENCH_IMAGES images (default 1000; 64 distinct JPEGs repeated).
// JPEGs are cut from the COCO sample photos in ../shared/compat when present,
// else synthesized.
#include <benchmark/benchmark.h>
#include <turbojpeg.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/bench_images.h"
#include "pipeline/ops/fuse.h"
#include "pipeline/ops/jpeg.h"
#include "pipeline/ops/op.h"
#include "pipeline/ops/resize.h"
#include "pipeline/pipeline.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

uint64_t EnvCount(const char* name, uint64_t def) {
  const char* env = std::getenv(name);
  return env ? std::strtoull(env, nullptr, 10) : def;
}

const std::string& Dir() {
  static std::string dir = [] {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/mr-pipeline-bench-XXXXXX";
    return std::string(mkdtemp(tmpl.data()));
  }();
  return dir;
}

// Rates measured so far (items/s), by benchmark key, for the ratio counters.
std::map<std::string, double>& Rates() {
  static std::map<std::string, double> rates;
  return rates;
}

// Runs `epoch` once per iteration, timed by the wall clock; returns items/s
// and records it under `key` for later ratio counters.
template <typename Fn>
double TimedLoop(benchmark::State& state, const std::string& key, Fn epoch) {
  using Clock = std::chrono::steady_clock;
  double secs = 0;
  uint64_t items = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    items += epoch();
    secs += std::chrono::duration<double>(Clock::now() - t0).count();
  }
  state.SetItemsProcessed(static_cast<int64_t>(items));
  const double rate = secs > 0 ? static_cast<double>(items) / secs : 0;
  Rates()[key] = rate;
  return rate;
}

// Sets counter `name` to rate / Rates()[base] when that was measured.
void RatioCounter(benchmark::State& state, const char* name, double rate, const std::string& base) {
  auto it = Rates().find(base);
  if (it != Rates().end() && it->second > 0) state.counters[name] = rate / it->second;
}

// ---- (a) small records ------------------------------------------------------

const std::vector<std::string>& Texts() {
  static std::vector<std::string> texts = [] {
    std::mt19937_64 rng(1);
    static const char* words[] = {"the ", "quick ", "brown ", "fox ", "jumps ", "over ", "lazy ", "dog ", "data ", "set "};
    std::vector<std::string> out;
    for (uint64_t i = 0; i < EnvCount("MR_BENCH_ROWS", 100000); ++i) {
      std::string text;
      while (text.size() < 1000) text += words[rng() % 10];
      out.push_back(std::move(text));
    }
    return out;
  }();
  return texts;
}

std::string RecordsDataset() {
  static std::string path = [] {
    std::string p = Dir() + "/records.mindrecord";
    auto schema = *Schema::FromUserJsonString(
        R"({"id":{"type":"int64"},"label":{"type":"int32"},"text":{"type":"bytes"}})");
    WriterOptions o;
    o.index_fields = std::vector<std::string>{"label"};
    auto w = *ShardWriter::Create(p, schema, o);
    const auto& texts = Texts();
    for (size_t i = 0; i < texts.size(); i += 1000) {
      std::vector<Row> batch;
      for (size_t k = i; k < std::min(texts.size(), i + 1000); ++k) {
        batch.push_back(Row{{"id", Value::Int(static_cast<int64_t>(k))},
                            {"label", Value::Int(static_cast<int64_t>(k % 1000))},
                            {"text", Value::Bytes(texts[k])}});
      }
      if (!w->WriteRows(batch).ok()) std::abort();
    }
    if (!w->Commit().ok()) std::abort();
    return p;
  }();
  return path;
}

// Drains one epoch of `plan`; returns rows read, or 0 after reporting an error.
uint64_t RunEpoch(benchmark::State& state, const Plan& plan) {
  auto pipe = Pipeline::Open(plan);
  if (!pipe.ok()) {
    state.SkipWithError(pipe.status().ToString().c_str());
    return 0;
  }
  uint64_t rows = 0;
  Batch b;
  for (;;) {
    auto more = (*pipe)->Next(&b);
    if (!more.ok()) {
      state.SkipWithError(more.status().ToString().c_str());
      return 0;
    }
    if (!*more) break;
    rows += b.size();
    benchmark::DoNotOptimize(b.columns.data());
  }
  state.SetLabel(std::string("io_mode ") + (*pipe)->stats().io_mode);
  return rows;
}

void BM_RecordsMemcpy(benchmark::State& state) {
  const auto& texts = Texts();
  std::vector<char> dst(2048);
  uint64_t bytes = 0;
  for (const auto& t : texts) bytes += t.size() + 16;
  TimedLoop(state, "records/memcpy", [&] {
    for (const auto& t : texts) {
      std::memcpy(dst.data(), t.data(), t.size());
      benchmark::DoNotOptimize(dst.data());
    }
    return texts.size();
  });
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void BM_Records(benchmark::State& state, bool shuffled) {
  Plan p;
  p.source = {RecordsDataset()};
  p.batch.batch_size = 256;
  p.num_workers = static_cast<uint32_t>(state.range(0));
  p.queue_depth = 4;
  p.seed = 1;
  if (shuffled) p.sampler = {{"type", "shuffle"}, {"mode", "global"}};
  const std::string w = std::to_string(p.num_workers);
  const double rate = TimedLoop(state, std::string("records/") + (shuffled ? "shuffled/" : "sequential/") + w,
                                [&] { return RunEpoch(state, p); });
  RatioCounter(state, "vs_memcpy", rate, "records/memcpy");
  if (shuffled) RatioCounter(state, "shuffled_vs_sequential", rate, "records/sequential/" + w);
}

// ---- (b) images ---------------------------------------------------------------

using bench::EncodeJpeg;
using bench::ReadFile;

// 64 distinct 960x720 q95 JPEGs: random crops of the sample photos, or
// smooth synthetic pictures with noise when the photos are absent.
const std::vector<std::string>& Jpegs() {
  static std::vector<std::string> out = [] {
    std::vector<std::string> jpegs;
    std::vector<Tensor> photos;
    const std::vector<std::string> paths = bench::CompatPhotoPaths();
    std::mt19937_64 rng(1);
    auto decode = MakeOp({{"op", "Decode"}}).value();
    for (const auto& p : paths) {
      auto img = decode->Apply(Tensor::FromString(TensorType::kBytes, ReadFile(p)), rng);
      if (img.ok()) photos.push_back(std::move(img).value());
    }
    auto crop = MakeOp({{"op", "RandomResizedCrop"}, {"size", {720, 960}}, {"scale", {0.5, 1.0}},
                        {"ratio", {1.2, 1.45}}, {"interpolation", "area"}}).value();
    for (int i = 0; i < 64; ++i) {
      Tensor img;
      if (!photos.empty()) {
        img = crop->Apply(photos[i % photos.size()], rng).value();
      } else {
        img = Tensor::Make(TensorType::kUInt8, {720, 960, 3});
        uint8_t* px = img.MutableData();
        for (int y = 0; y < 720; ++y) {
          for (int x = 0; x < 960; ++x) {
            for (int c = 0; c < 3; ++c) {
              const double v = 128 + 60 * std::sin((x + 37 * i) * 0.013 * (c + 1)) * std::cos(y * 0.011 * (c + 2));
              px[(y * 960 + x) * 3 + c] = static_cast<uint8_t>(std::clamp(v + static_cast<int>(rng() % 41) - 20, 0.0, 255.0));
            }
          }
        }
      }
      jpegs.push_back(EncodeJpeg(img, 95));
    }
    return jpegs;
  }();
  return out;
}

uint64_t NumImages() { return EnvCount("MR_BENCH_IMAGES", 1000); }

std::string ImagesDataset() {
  static std::string path = [] {
    std::string p = Dir() + "/images.mindrecord";
    auto schema = *Schema::FromUserJsonString(R"({"image":{"type":"bytes"},"label":{"type":"int32"}})");
    auto w = *ShardWriter::Create(p, schema, WriterOptions{});
    const auto& jpegs = Jpegs();
    std::vector<Row> batch;
    for (uint64_t i = 0; i < NumImages(); ++i) {
      batch.push_back(Row{{"image", Value::Bytes(jpegs[i % jpegs.size()])}, {"label", Value::Int(static_cast<int64_t>(i % 10))}});
      if (batch.size() == 100) {
        if (!w->WriteRows(batch).ok()) std::abort();
        batch.clear();
      }
    }
    if (!batch.empty() && !w->WriteRows(batch).ok()) std::abort();
    if (!w->Commit().ok()) std::abort();
    return p;
  }();
  return path;
}

const std::vector<nlohmann::json>& Chain() {
  static const std::vector<nlohmann::json> chain = {
      {{"op", "Decode"}},
      {{"op", "RandomResizedCrop"}, {"size", {224, 224}}},
      {{"op", "RandomHorizontalFlip"}},
      {{"op", "Normalize"}, {"mean", {123.675, 116.28, 103.53}}, {"std", {58.395, 57.12, 57.375}}},
  };
  return chain;
}

// The ceiling: full-size decode and one resize to 224x224, one thread, JPEG
// bytes in memory.
void BM_ImagesBareDecodeResize(benchmark::State& state) {
  const auto& jpegs = Jpegs();
  const uint64_t n = NumImages();
  TimedLoop(state, "images/bare", [&]() -> uint64_t {
    for (uint64_t i = 0; i < n; ++i) {
      const std::string& jpg = jpegs[i % jpegs.size()];
      auto img = ops::DecodeJpeg(reinterpret_cast<const uint8_t*>(jpg.data()), jpg.size(), ops::JpegScale{1, 1});
      if (!img.ok()) {
        state.SkipWithError(img.status().ToString().c_str());
        return 0;
      }
      ops::ImageDims d{static_cast<int>(img->shape()[0]), static_cast<int>(img->shape()[1]), 3, true};
      auto out = ops::ResizeImage(*img, d, 224, 224, ops::Interpolation::kBilinear, "bench");
      benchmark::DoNotOptimize(out->data());
    }
    return n;
  });
}

// The pipeline's own op chain (fused as the pipeline fuses it), one thread,
// JPEG bytes in memory: the ceiling for the same work.
void BM_ImagesBareChain(benchmark::State& state) {
  const auto& jpegs = Jpegs();
  const uint64_t n = NumImages();
  std::vector<std::unique_ptr<TensorOp>> ops;
  for (const auto& s : FuseOps(Chain())) ops.push_back(MakeOp(s).value());
  TimedLoop(state, "images/chain", [&]() -> uint64_t {
    for (uint64_t i = 0; i < n; ++i) {
      Tensor t = Tensor::FromString(TensorType::kBytes, jpegs[i % jpegs.size()]);
      for (size_t k = 0; k < ops.size(); ++k) {
        std::mt19937_64 rng(i * 1000003 + k);
        auto r = ops[k]->Apply(std::move(t), rng);
        if (!r.ok()) {
          state.SkipWithError(r.status().ToString().c_str());
          return 0;
        }
        t = std::move(r).value();
      }
      benchmark::DoNotOptimize(t.data());
    }
    return n;
  });
}

void BM_ImagesPipeline(benchmark::State& state) {
  Plan p;
  p.source = {ImagesDataset()};
  p.columns = {"image", "label"};
  p.ops["image"] = Chain();
  p.sampler = {{"type", "shuffle"}, {"mode", "global"}};
  p.batch.batch_size = 32;
  p.num_workers = static_cast<uint32_t>(state.range(0));
  p.queue_depth = 4;
  p.seed = 1;
  const double rate = TimedLoop(state, "images/pipeline/" + std::to_string(p.num_workers),
                                [&] { return RunEpoch(state, p); });
  RatioCounter(state, "per_worker_vs_bare", rate / p.num_workers, "images/bare");
  RatioCounter(state, "per_worker_vs_chain", rate / p.num_workers, "images/chain");
}

BENCHMARK(BM_RecordsMemcpy)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Records, sequential, false)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Records, shuffled, true)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ImagesBareDecodeResize)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ImagesBareChain)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ImagesPipeline)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// After the console table: every rate and the issue's ratios (the same
// figures as the counters, in one place).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto rate = [](const std::string& key) {
      auto it = Rates().find(key);
      return it == Rates().end() ? 0.0 : it->second;
    };
    std::printf("\nitems/s (rows or images), wall clock:\n");
    for (const auto& [key, r] : Rates()) std::printf("  %-28s %12.0f\n", key.c_str(), r);
    const double mem = rate("records/memcpy");
    for (const char* w : {"1", "2"}) {
      const double seq = rate(std::string("records/sequential/") + w);
      const double shuf = rate(std::string("records/shuffled/") + w);
      if (seq > 0 && shuf > 0 && mem > 0) {
        std::printf("records, %s worker(s): shuffled/sequential %.3f (aim >= 0.8); sequential/memcpy %.4f, "
                    "shuffled/memcpy %.4f\n", w, shuf / seq, seq / mem, shuf / mem);
      }
    }
    const double bare = rate("images/bare"), chain = rate("images/chain");
    for (int w : {1, 2}) {
      const double pipe = rate("images/pipeline/" + std::to_string(w));
      if (pipe > 0 && bare > 0 && chain > 0) {
        std::printf("images, %d worker(s): per worker / bare decode+resize %.3f (aim >= 0.9); "
                    "per worker / bare fused chain %.3f\n", w, pipe / w / bare, pipe / w / chain);
      }
    }
  }
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
