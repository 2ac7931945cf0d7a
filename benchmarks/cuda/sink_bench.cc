// cuda_sink_bench: the CUDA device sink against its ceilings, measured in the
// same process (built only with -DMINDRECORD_WITH_CUDA=ON):
//  (1) peak H2D: cudaMemcpyAsync from one pinned buffer (and cudaMemcpy from
//      pageable memory, for reference), timed with CUDA events;
//  (2) the sink alone: batches of float32 [batch,224,224,3] through
//      Launch/WaitOldest as Pipeline::Next drives them (copy of batch k+1
//      started before batch k is waited for), wall clock, in GB/s and as a
//      fraction of (1): batches in pinned memory (as the pipeline builds
//      them) and in pageable memory (staged by the sink);
//  (3) overlap with decode: the image pipeline (Decode + RandomResizedCrop 224
//      + flip + Normalize, float32 out) with the host sink and with the CUDA
//      sink, images/s at several worker counts; cuda/host near 1 means the
//      copies hide behind decoding; staged/host is the CUDA sink fed from
//      pageable batches (a consumer's own allocator).
// Every figure is the median of --runs runs. Usage:
//   cuda_sink_bench [--images N] [--workers 1,4,8] [--runs R] [--batch B] [--buffers S] [--device D]
//                   [--epochs E]   (epochs per pipeline opened; each run is one Open to the end)
#include <cuda_runtime.h>
#include <turbojpeg.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline/device_sink.h"
#include "pipeline/pinned_pool.h"
#include "pipeline/pipeline.h"
#include "writers/shard_writer.h"

namespace mindrecord {
namespace {

using Clock = std::chrono::steady_clock;

#define CHECK_CUDA(expr)                                                                            \
  do {                                                                                              \
    cudaError_t _e = (expr);                                                                        \
    if (_e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(_e)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

template <typename T>
void Check(const Result<T>& r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, r.status().ToString().c_str());
    std::exit(1);
  }
}
void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double Seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Options {
  uint64_t images = 4000;
  std::vector<uint32_t> workers = {1, 4, 8, 14};
  int runs = 5;
  uint64_t batch = 32;
  uint32_t buffers = 3;
  int device = 0;
  uint64_t epochs = 3;  // per pipeline opened (one Open per timed run)
};

// ---- (1) peak H2D ----------------------------------------------------------

// GB/s (1e9 bytes) of `reps` copies of `bytes`, timed with events.
double CopyRate(void* dst, const void* src, size_t bytes, int reps, bool async, cudaStream_t s) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  CHECK_CUDA(cudaEventRecord(a, s));
  for (int i = 0; i < reps; ++i) {
    if (async) {
      CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    } else {
      CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    }
  }
  CHECK_CUDA(cudaEventRecord(b, s));
  CHECK_CUDA(cudaEventSynchronize(b));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  return static_cast<double>(bytes) * reps / (ms * 1e-3) / 1e9;
}

struct Peak {
  double pinned_async = 0, pageable = 0, host_to_pinned_memcpy = 0;
};

Peak MeasurePeak(size_t bytes, int runs) {
  Peak p;
  void *pinned = nullptr, *dev = nullptr;
  CHECK_CUDA(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
  CHECK_CUDA(cudaMalloc(&dev, bytes));
  std::vector<uint8_t> pageable(bytes);
  for (size_t i = 0; i < bytes; ++i) pageable[i] = static_cast<uint8_t>(i * 131 + 7);
  std::memcpy(pinned, pageable.data(), bytes);
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CopyRate(dev, pinned, bytes, 3, true, s);  // warm-up
  std::vector<double> a, b, c;
  for (int r = 0; r < runs; ++r) {
    a.push_back(CopyRate(dev, pinned, bytes, 20, true, s));
    b.push_back(CopyRate(dev, pageable.data(), bytes, 10, false, nullptr));
    const auto t0 = Clock::now();
    for (int i = 0; i < 10; ++i) std::memcpy(pinned, pageable.data(), bytes);
    c.push_back(static_cast<double>(bytes) * 10 / Seconds(t0) / 1e9);
  }
  p.pinned_async = Median(a);
  p.pageable = Median(b);
  p.host_to_pinned_memcpy = Median(c);
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaFreeHost(pinned));
  return p;
}

// ---- (2) the sink alone ----------------------------------------------------

Batch SyntheticBatch(uint64_t rows, uint32_t seed, PinnedPool* pool) {
  Batch b;
  BatchColumn c;
  c.name = "image";
  const std::vector<int64_t> shape = {static_cast<int64_t>(rows), 224, 224, 3};
  if (pool) {
    auto t = pool->Allocate(TensorType::kFloat32, shape);
    Check(t, "PinnedPool::Allocate");
    c.data = *t;
  } else {
    c.data = Tensor::Make(TensorType::kFloat32, shape);
  }
  float* f = c.data.mutable_data_as<float>();
  for (int64_t i = 0; i < c.data.num_elements(); ++i) f[i] = static_cast<float>((i + seed) % 251) * 0.01f;
  b.columns.push_back(std::move(c));
  return b;
}

// GB/s through Launch/WaitOldest, one batch copied ahead as Pipeline::Next
// does, from batches in pinned memory (a PinnedPool, as the pipeline builds
// them) or in pageable memory (staged).
double SinkRate(const Options& o, int batches, bool pinned) {
  SinkSpec spec;
  spec.kind = SinkSpec::Kind::kCuda;
  spec.device = o.device;
  spec.buffers = o.buffers;
  auto sink = MakeCudaSink(spec);
  Check(sink, "MakeCudaSink");
  std::vector<Batch> src;
  for (uint32_t i = 0; i < 4; ++i) src.push_back(SyntheticBatch(o.batch, i, pinned ? &PinnedPool::Shared() : nullptr));
  if (pinned != PinnedPool::IsPinned(src[0].columns[0].data)) {
    std::fprintf(stderr, "pinned memory could not be had\n");
    std::exit(1);
  }
  const size_t bytes = src[0].columns[0].data.size_bytes();
  auto run = [&](int n) {
    Batch next = src[0];
    Check((*sink)->Launch(&next), "Launch");
    for (int i = 1; i <= n; ++i) {
      if (i < n) {
        Batch b = src[i % src.size()];  // shares the buffer: no copy
        Check((*sink)->Launch(&b), "Launch");
      }
      Check((*sink)->WaitOldest(), "WaitOldest");
    }
  };
  run(4);  // warm-up: buffers allocated
  const auto t0 = Clock::now();
  run(batches);
  return static_cast<double>(bytes) * batches / Seconds(t0) / 1e9;
}

// ---- (3) the image pipeline, host sink vs CUDA sink ------------------------

std::string EncodeJpeg(const std::vector<uint8_t>& rgb, int w, int h) {
  tjhandle t = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  tjCompress2(t, rgb.data(), w, w * 3, h, TJPF_RGB, &buf, &size, TJSAMP_420, 95, 0);
  std::string out(reinterpret_cast<char*>(buf), size);
  tjFree(buf);
  tjDestroy(t);
  return out;
}

// `n` rows of 960x720 q95 JPEGs (64 distinct smooth pictures with noise).
std::string ImagesDataset(const std::string& dir, uint64_t n) {
  std::mt19937_64 rng(1);
  std::vector<std::string> jpegs;
  for (int i = 0; i < 64; ++i) {
    std::vector<uint8_t> px(720 * 960 * 3);
    for (int y = 0; y < 720; ++y) {
      for (int x = 0; x < 960; ++x) {
        for (int c = 0; c < 3; ++c) {
          const double v = 128 + 60 * std::sin((x + 37 * i) * 0.013 * (c + 1)) * std::cos(y * 0.011 * (c + 2));
          px[(y * 960 + x) * 3 + c] = static_cast<uint8_t>(std::clamp(v + static_cast<int>(rng() % 41) - 20, 0.0, 255.0));
        }
      }
    }
    jpegs.push_back(EncodeJpeg(px, 960, 720));
  }
  const std::string path = dir + "/images.mindrecord";
  auto schema = Schema::FromUserJsonString(R"({"image":{"type":"bytes"},"label":{"type":"int32"}})");
  Check(schema, "schema");
  auto w = ShardWriter::Create(path, *schema, WriterOptions{});
  Check(w, "ShardWriter::Create");
  std::vector<Row> rows;
  for (uint64_t i = 0; i < n; ++i) {
    rows.push_back(Row{{"image", Value::Bytes(jpegs[i % jpegs.size()])}, {"label", Value::Int(static_cast<int64_t>(i % 10))}});
    if (rows.size() == 100 || i + 1 == n) {
      Check((*w)->WriteRows(rows), "WriteRows");
      rows.clear();
    }
  }
  Check((*w)->Commit(), "Commit");
  return path;
}

struct EpochResult {
  double images_per_s = 0, sink_s = 0, bytes = 0, seconds = 0;
  uint64_t batches = 0;
};

EpochResult RunEpoch(const Plan& plan, BatchAllocator alloc = nullptr) {
  auto pipe = Pipeline::Open(plan, nullptr, std::move(alloc));
  Check(pipe, "Pipeline::Open");
  EpochResult r;
  uint64_t images = 0;
  Batch b;
  const auto t0 = Clock::now();
  for (;;) {
    auto more = (*pipe)->Next(&b);
    Check(more, "Next");
    if (!*more) break;
    images += b.size();
    r.batches++;
    for (const auto& c : b.columns) {
      if (!c.is_list()) r.bytes += static_cast<double>(c.data.size_bytes());
    }
  }
  r.seconds = Seconds(t0);
  r.images_per_s = static_cast<double>(images) / r.seconds;
  r.sink_s = (*pipe)->stats().sink_s;
  return r;
}

std::vector<uint32_t> ParseList(const std::string& s) {
  std::vector<uint32_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(static_cast<uint32_t>(std::stoul(item)));
  return out;
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--images") o.images = std::stoull(value());
    else if (a == "--workers") o.workers = ParseList(value());
    else if (a == "--runs") o.runs = std::stoi(value());
    else if (a == "--batch") o.batch = std::stoull(value());
    else if (a == "--buffers") o.buffers = static_cast<uint32_t>(std::stoul(value()));
    else if (a == "--device") o.device = std::stoi(value());
    else if (a == "--epochs") o.epochs = std::stoull(value());
    else {
      std::fprintf(stderr, "unknown argument %s\nusage: cuda_sink_bench [--images N] [--workers 1,4,8] [--runs R] "
                           "[--batch B] [--buffers S] [--device D] [--epochs E]\n", a.c_str());
      return 1;
    }
  }
  std::string why;
  if (!CudaSinkAvailable(&why)) {
    std::fprintf(stderr, "cuda_sink_bench: %s\n", why.c_str());
    return 2;
  }
  CHECK_CUDA(cudaSetDevice(o.device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, o.device));
  std::printf("device %d: %s, %d SMs, %.1f GiB\n", o.device, prop.name, prop.multiProcessorCount,
              static_cast<double>(prop.totalGlobalMem) / (1 << 30));

  const size_t batch_bytes = o.batch * 224 * 224 * 3 * sizeof(float);
  const Peak peak = MeasurePeak(batch_bytes, o.runs);
  std::printf("\n(1) H2D peak, %zu-byte copies (one batch), median of %d:\n", batch_bytes, o.runs);
  std::printf("  cudaMemcpyAsync from pinned memory   %7.2f GB/s\n", peak.pinned_async);
  std::printf("  cudaMemcpy from pageable memory      %7.2f GB/s\n", peak.pageable);
  std::printf("  host memcpy pageable -> pinned       %7.2f GB/s (the sink's staging copy, one thread)\n",
              peak.host_to_pinned_memcpy);

  std::vector<double> sink_pinned, sink_staged;
  for (int r = 0; r < o.runs; ++r) {
    sink_pinned.push_back(SinkRate(o, 50, true));
    sink_staged.push_back(SinkRate(o, 50, false));
  }
  std::printf("\n(2) sink alone, %u buffers, 50 batches of %zu bytes, median of %d:\n", o.buffers, batch_bytes, o.runs);
  std::printf("  batches in pinned memory (DMA)       %7.2f GB/s = %.3f of the pinned peak\n", Median(sink_pinned),
              Median(sink_pinned) / peak.pinned_async);
  std::printf("  batches in pageable memory (staged)  %7.2f GB/s = %.3f of the pinned peak\n", Median(sink_staged),
              Median(sink_staged) / peak.pinned_async);

  std::string tmpl = std::filesystem::temp_directory_path().string() + "/mr-cuda-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl.data());
  const auto t0 = Clock::now();
  const std::string path = ImagesDataset(dir, o.images);
  std::printf("\n(3) image pipeline, %llu JPEGs 960x720 -> float32 224x224x3, batch %llu, %llu epochs per run "
              "(dataset written in %.1f s);\n    staged = CUDA sink fed pageable batches; ms/b = consumer-thread "
              "time in the sink per batch\n",
              static_cast<unsigned long long>(o.images), static_cast<unsigned long long>(o.batch),
              static_cast<unsigned long long>(o.epochs), Seconds(t0));
  std::printf("  %7s %11s %11s %9s %10s %12s %12s %14s\n", "workers", "host img/s", "cuda img/s", "cuda/host",
              "H2D GB/s", "staged/host", "sink ms/b", "staged ms/b");
  for (uint32_t w : o.workers) {
    Plan p;
    p.source = {path};
    p.columns = {"image", "label"};
    p.ops["image"] = {{{"op", "Decode"}},
                      {{"op", "RandomResizedCrop"}, {"size", {224, 224}}},
                      {{"op", "RandomHorizontalFlip"}},
                      {{"op", "Normalize"}, {"mean", {123.675, 116.28, 103.53}}, {"std", {58.395, 57.12, 57.375}}}};
    p.sampler = {{"type", "shuffle"}, {"mode", "global"}};
    p.batch.batch_size = o.batch;
    p.num_workers = w;
    p.queue_depth = std::max<uint32_t>(4, 2 * w);  // each batch in flight keeps one worker busy
    p.seed = 1;
    p.epochs = o.epochs;
    Plan c = p;
    c.sink.kind = SinkSpec::Kind::kCuda;
    c.sink.device = o.device;
    c.sink.buffers = o.buffers;
    // The CUDA sink with batches in pageable memory, i.e. staged (as with a
    // consumer's own allocator).
    BatchAllocator pageable = [](TensorType type, const std::vector<int64_t>& shape) -> Result<Tensor> {
      return Tensor::Make(type, shape);
    };
    RunEpoch(p);  // warm-up: page cache, allocator
    RunEpoch(c);
    std::vector<double> host, cuda, staged, gbs, sink_ms, staged_ms;
    for (int r = 0; r < o.runs; ++r) {  // interleaved, so drift hits all alike
      host.push_back(RunEpoch(p).images_per_s);
      const EpochResult e = RunEpoch(c);
      cuda.push_back(e.images_per_s);
      gbs.push_back(e.bytes / e.seconds / 1e9);
      sink_ms.push_back(e.sink_s * 1e3 / static_cast<double>(e.batches));
      const EpochResult st = RunEpoch(c, pageable);
      staged.push_back(st.images_per_s);
      staged_ms.push_back(st.sink_s * 1e3 / static_cast<double>(st.batches));
    }
    const double h = Median(host), d = Median(cuda);
    std::printf("  %7u %11.0f %11.0f %9.3f %10.2f %12.3f %12.3f %14.3f\n", w, h, d, d / h, Median(gbs),
                Median(staged) / h, Median(sink_ms), Median(staged_ms));
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace mindrecord

int main(int argc, char** argv) { return mindrecord::Main(argc, argv); }
