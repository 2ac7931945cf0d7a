// Workload 2: ~100 KB JPEGs made from the compat photos. ImageFolder ->
// MindRecord / TFRecord conversion against `cat`; raw bytes in shuffled order;
// Decode + RandomResizedCrop(224) + flip + Normalize at 1..max_workers
// workers against the bare decode+resize loop on in-memory JPEGs.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <thread>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "benchmarks/baselines/plain_files.h"
#include "benchmarks/baselines/tf_example.h"
#include "benchmarks/baselines/tfrecord_io.h"
#include "benchmarks/bench_images.h"
#include "benchmarks/suite/harness.h"
#include "pipeline/ops/fuse.h"
#include "pipeline/ops/jpeg.h"
#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/resize.h"
#include "pipeline/pipeline.h"
#include "pipeline/sampler.h"
#include "readers/shard_reader.h"
#include "writers/convert/converter.h"

namespace fs = std::filesystem;

namespace mindrecord::bench {
namespace {

constexpr const char* kImagesWorkload = "images";

// Runs fn(i) for i in [0, n) on `threads` threads.
void ParallelFor(int threads, size_t n, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    });
  for (auto& th : pool) th.join();
}

// SRC/class_XX/img_NNNNNNN.jpg, 10 classes; kept between invocations.
std::string GenerateImages(const SuiteOptions& o, uint64_t n) {
  const std::string dir = o.work_dir + "/images_" + std::to_string(n);
  const std::string marker = dir + "/.complete";
  if (fs::exists(marker)) return dir + "/src";
  RemoveAll(dir);
  std::vector<cv::Mat> photos;
  for (const char* sub : {"sources/coco/train", "sources/voc2012/JPEGImages"}) {
    for (const auto& p : CompatPhotoPaths(sub)) {
      cv::Mat m = cv::imread(p, cv::IMREAD_COLOR);
      if (!m.empty() && m.cols >= 320 && m.rows >= 240) photos.push_back(m);
    }
  }
  if (photos.empty()) {  // no compat folder: smooth synthetic pictures with noise
    std::fprintf(stderr, "images: compat photos absent (MINDRECORD_COMPAT_DIR); using synthetic pictures\n");
    std::mt19937_64 rng(7);
    for (int i = 0; i < 8; ++i) {
      cv::Mat m(480, 640, CV_8UC3);
      for (int y = 0; y < m.rows; ++y) {
        for (int x = 0; x < m.cols; ++x) {
          for (int c = 0; c < 3; ++c) {
            const double v = 128 + 60 * std::sin((x + 37 * i) * 0.013 * (c + 1)) * std::cos(y * 0.011 * (c + 2));
            m.at<cv::Vec3b>(y, x)[c] = cv::saturate_cast<uint8_t>(v + static_cast<int>(rng() % 41) - 20);
          }
        }
      }
      photos.push_back(m);
    }
  }
  std::fprintf(stderr, "images: generating %llu JPEGs from %zu photos in %s\n", static_cast<unsigned long long>(n),
               photos.size(), dir.c_str());
  ParallelFor(o.max_workers, n, [&](size_t i) {
    const cv::Mat& p = photos[i % photos.size()];
    std::mt19937_64 rng(i);
    // A random crop of 55..100% of the photo, scaled to 800x600, mirrored for
    // odd variants: every image differs.
    const double f = 0.55 + 0.45 * static_cast<double>(rng() % 1000) / 1000.0;
    const int w = std::max(64, static_cast<int>(p.cols * f)), h = std::max(48, static_cast<int>(p.rows * f));
    const int x = static_cast<int>(rng() % static_cast<uint64_t>(p.cols - w + 1));
    const int y = static_cast<int>(rng() % static_cast<uint64_t>(p.rows - h + 1));
    cv::Mat img;
    cv::resize(p(cv::Rect(x, y, w, h)), img, cv::Size(800, 600), 0, 0, cv::INTER_LINEAR);
    if ((i / photos.size()) % 2) cv::flip(img, img, 1);
    std::vector<uchar> buf;
    cv::imencode(".jpg", img, buf, {cv::IMWRITE_JPEG_QUALITY, 97});
    char rel[64];
    std::snprintf(rel, sizeof(rel), "/src/class_%02zu/img_%07zu.jpg", i % 10, i);
    Check(WriteWholeFile(dir + rel, std::string_view(reinterpret_cast<const char*>(buf.data()), buf.size())), rel);
  });
  std::ofstream(marker) << n << "\n";
  return dir + "/src";
}

int LabelOf(const std::string& path) {  // .../class_XX/img_N.jpg
  const std::string cls = fs::path(path).parent_path().filename().string();
  return std::atoi(cls.c_str() + 6);
}

void ConvertToTfRecord(const std::vector<std::string>& files, const std::string& out) {
  auto w = Unwrap(TfRecordWriter::Create(out, out + ".idx"), "create " + out);
  std::string bytes;
  for (const auto& f : files) {
    Check(ReadWholeFile(f, &bytes), f);
    Check(w->Append(MakeExample("image/encoded", bytes, "image/class/label", LabelOf(f))), out);
  }
  Check(w->Close(), "close " + out);
}

const std::vector<nlohmann::json> kChain = {
    {{"op", "Decode"}},
    {{"op", "RandomResizedCrop"}, {"size", {224, 224}}, {"scale", {0.08, 1.0}}, {"ratio", {0.75, 1.333}},
     {"interpolation", "bilinear"}},
    {{"op", "RandomHorizontalFlip"}, {"p", 0.5}},
    {{"op", "Normalize"}, {"mean", {123.675, 116.28, 103.53}}, {"std", {58.395, 57.12, 57.375}}},
};

// The same ops the pipeline builds for kChain (it fuses decode + crop).
std::vector<std::unique_ptr<TensorOp>> ChainOps() {
  std::vector<std::unique_ptr<TensorOp>> ops;
  for (const auto& s : FuseOps(kChain)) ops.push_back(Unwrap(MakeOp(s), "op"));
  return ops;
}

// The pipeline's seed; the baselines seed each op as the pipeline does (plan
// seed, epoch 0, position, column 0, op index), so every system decodes and
// crops exactly the same windows and only storage and runtime differ.
constexpr uint64_t kSeed = 1;

// One baseline worker step: JPEG bytes -> ops -> into the worker's batch slot.
void Transform(const std::vector<std::unique_ptr<TensorOp>>& ops, std::string jpeg, uint64_t position, char* slot) {
  Tensor t = Tensor::FromString(TensorType::kBytes, std::move(jpeg));
  for (size_t k = 0; k < ops.size(); ++k) {
    std::mt19937_64 rng(MixSeed({kSeed, 0, position, 0, k}));
    t = Unwrap(ops[k]->Apply(std::move(t), rng), "op");
  }
  std::memcpy(slot, t.data(), std::min<size_t>(t.size_bytes(), 224 * 224 * 3 * 4));
}

void AddImageResult(Results& r, const std::string& task, const std::string& system, const std::string& role, uint64_t items,
         uint64_t bytes, std::vector<double> secs, std::vector<double> cpu = {}) {
  r.Add({kImagesWorkload, task, system, role, "images", items, bytes, std::move(secs), std::move(cpu), nlohmann::json::object()});
}

}  // namespace

void RunImagesWorkload(const SuiteOptions& o, Results& results) {
  const uint64_t n = o.Scaled(20000, 32);
  const uint64_t np = std::min<uint64_t>(n, o.Scaled(1000, 32));  // images per pipeline run
  const std::string src = GenerateImages(o, n);
  const std::vector<std::string> files = ListFiles(src);
  const DiskUsage src_usage = UsageOf(files);
  std::fprintf(stderr, "images: %zu JPEGs, mean %.1f KB; pipeline runs use %llu of them\n", files.size(),
               src_usage.bytes / 1e3 / static_cast<double>(files.size()), static_cast<unsigned long long>(np));
  const std::string out = o.work_dir + "/images_out";
  RemoveAll(out);
  fs::create_directories(out);
  const std::string mr = out + "/images.mindrecord", tf = out + "/images.tfrecord";
  const uint64_t bytes = src_usage.bytes;

  // ---- convert ----
  for (int w = 1; w <= o.max_workers; w *= 2) {
    convert::ConvertOptions co;
    co.workers = static_cast<uint32_t>(w);
    co.overwrite = true;
    AddImageResult(results, "convert", "MindRecord, " + std::to_string(w) + " worker" + (w > 1 ? "s" : ""), "ours", n, bytes,
        TimeRuns(o, [&] { Unwrap(convert::Convert("imagefolder", src, mr, co), "convert"); }));
  }
  AddImageResult(results, "convert", "TFRecord + .idx, 1 thread", "baseline", n, bytes,
      TimeRuns(o, [&] { ConvertToTfRecord(files, tf); }));
  AddImageResult(results, "convert", "cat source files", "ceiling", n, bytes, TimeRuns(o, [&] { Check(CatFiles(files).status(), "cat"); }));
  results.Set("images", {{"images", n},
                         {"pipeline_images", np},
                         {"source_bytes", bytes},
                         {"sizes",
                          {{"plain files", {{"files", src_usage.files}, {"bytes", src_usage.bytes}, {"allocated", src_usage.allocated}}},
                           {"MindRecord (.mindrecord + .db)", {{"bytes", UsageOf({mr, mr + ".db"}).bytes}}},
                           {"TFRecord + .idx", {{"bytes", UsageOf({tf, tf + ".idx"}).bytes}}}}}});

  // ---- raw bytes, shuffled ----
  auto mr_pread = Unwrap(ShardReader::Open(mr), "open " + mr);
  ReaderOptions mmo;
  mmo.io_mode = IoMode::kMmap;
  auto mr_mmap = Unwrap(ShardReader::Open(mr, mmo), "open " + mr);
  auto tf_rand = Unwrap(TfRecordRandomReader::Open(tf, Unwrap(ReadIndexFile(tf + ".idx"), "idx")), "open " + tf);
  if (mr_pread->num_rows() != n || tf_rand->size() != n) Check(Status::Internal("row counts differ"), "images");
  // Converted rows follow the sorted file list, as the TFRecord records do.
  std::vector<uint64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(5));
  auto proj = Unwrap(mr_pread->MakeProjection({"image"}), "projection");
  std::string scratch;
  tf::Example ex;
  {
    const std::string t = "raw bytes, shuffled";
    auto mr_read = [&](const ShardReader& r) {
      uint64_t got = 0;
      for (uint64_t id : perm) got += Unwrap(r.ReadRow(id, &proj), "read").Get("image").bytes().size();
      if (got != bytes) Check(Status::Internal("MindRecord read " + std::to_string(got) + " bytes"), t);
    };
    AddImageResult(results, t, "MindRecord (pread)", "ours", n, bytes, TimeRuns(o, [&] { mr_read(*mr_pread); }));
    AddImageResult(results, t, "MindRecord (mmap)", "ours", n, bytes, TimeRuns(o, [&] { mr_read(*mr_mmap); }));
    AddImageResult(results, t, "TFRecord + .idx", "baseline", n, bytes, TimeRuns(o, [&] {
          uint64_t got = 0;
          for (uint64_t id : perm) {
            Check(ParseExample(Unwrap(tf_rand->Read(id, &scratch), "read"), &ex), "parse");
            got += Unwrap(BytesFeature(ex, "image/encoded"), "image").size();
          }
          if (got != bytes) Check(Status::Internal("TFRecord read other bytes"), t);
        }));
    AddImageResult(results, t, "plain files", "baseline", n, bytes, TimeRuns(o, [&] {
          for (uint64_t id : perm) Check(ReadWholeFile(files[id], &scratch), files[id]);
        }));
    // memcpy of the same number of bytes from in-memory JPEGs (a 64-image pool).
    std::vector<std::string> pool;
    for (size_t i = 0; i < std::min<size_t>(64, n); ++i) {
      pool.emplace_back();
      Check(ReadWholeFile(files[i], &pool.back()), files[i]);
    }
    std::string sink(4 << 20, '\0');
    std::vector<uint64_t> sizes(n);
    for (size_t i = 0; i < n; ++i) sizes[i] = fs::file_size(files[i]);
    AddImageResult(results, t, "memcpy", "ceiling", n, bytes, TimeRuns(o, [&] {
          for (uint64_t id : perm) {
            const std::string& s = pool[id % pool.size()];
            const size_t len = std::min<size_t>(sizes[id], sink.size());
            for (size_t done = 0; done < len; done += s.size())
              std::memcpy(sink.data() + done, s.data(), std::min(s.size(), len - done));
            asm volatile("" : : "r"(sink.data()) : "memory");
          }
        }));
    AddImageResult(results, t, "cat source files", "ceiling", n, bytes, TimeRuns(o, [&] { Check(CatFiles(files).status(), "cat"); }));
  }

  // ---- decode + RandomResizedCrop(224) + flip + normalize ----
  std::vector<uint64_t> ids(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(np));
  std::vector<std::string> mem(np);  // the same JPEGs in memory, for the ceilings
  uint64_t np_bytes = 0;
  for (size_t i = 0; i < np; ++i) {
    Check(ReadWholeFile(files[ids[i]], &mem[i]), files[ids[i]]);
    np_bytes += mem[i].size();
  }
  const auto ops = ChainOps();
  constexpr size_t kBatch = 32, kSlot = 224 * 224 * 3 * 4;
  for (int w = 1; w <= o.max_workers; w *= 2) {
    const std::string t = "decode+crop+flip+normalize, " + std::to_string(w) + " worker" + (w > 1 ? "s" : "");
    Plan plan;
    plan.source = {mr};
    plan.columns = {"image", "label"};
    plan.sampler = {{"type", "subset"}, {"indices", ids}};
    plan.ops["image"] = kChain;
    plan.batch.batch_size = kBatch;
    plan.num_workers = static_cast<uint32_t>(w);
    plan.seed = kSeed;
    auto run_pipeline = [&] {
      auto pipe = Unwrap(Pipeline::Open(plan), "pipeline");
      Batch b;
      uint64_t rows = 0;
      while (Unwrap(pipe->Next(&b), "next")) rows += b.size();
      if (rows != np) Check(Status::Internal("pipeline returned " + std::to_string(rows) + " rows"), t);
    };
    // Baselines: w threads, each fetching, transforming and batching its rows.
    auto threaded = [&](const std::function<std::string(size_t, std::string&, tf::Example&)>& fetch) {
      std::atomic<size_t> next{0};
      std::vector<std::thread> pool;
      for (int k = 0; k < w; ++k)
        pool.emplace_back([&] {
          std::vector<char> batch(kBatch * kSlot);
          std::string buf;
          tf::Example e;
          for (size_t i; (i = next.fetch_add(1)) < np;) Transform(ops, fetch(i, buf, e), i, batch.data() + (i % kBatch) * kSlot);
        });
      for (auto& th : pool) th.join();
    };
    auto run_tf = [&] {
      threaded([&](size_t i, std::string& buf, tf::Example& e) {
        Check(ParseExample(Unwrap(tf_rand->Read(ids[i], &buf), "read"), &e), "parse");
        return std::string(Unwrap(BytesFeature(e, "image/encoded"), "image"));
      });
    };
    auto run_plain = [&] {
      threaded([&](size_t i, std::string& buf, tf::Example&) {
        Check(ReadWholeFile(files[ids[i]], &buf), files[ids[i]]);
        return std::move(buf);
      });
    };
    auto run_mem = [&] { threaded([&](size_t i, std::string&, tf::Example&) { return mem[i]; }); };
    auto run_bare = [&] {
      ParallelFor(w, np, [&](size_t i) {
        auto img = Unwrap(ops::DecodeJpeg(reinterpret_cast<const uint8_t*>(mem[i].data()), mem[i].size(),
                                          ops::JpegScale{1, 1}), "decode");
        ops::ImageDims d{static_cast<int>(img.shape()[0]), static_cast<int>(img.shape()[1]), 3, true};
        auto r = Unwrap(ops::ResizeImage(img, d, 224, 224, ops::Interpolation::kBilinear, "bench"), "resize");
        asm volatile("" : : "r"(r.data()) : "memory");
      });
    };
    // Interleaved: these figures are the most sensitive to load drift.
    std::vector<std::vector<double>> cpu;
    auto secs = TimeInterleaved(o, {run_pipeline, run_tf, run_plain, run_mem, run_bare}, &cpu);
    AddImageResult(results, t, "MindRecord pipeline", "ours", np, np_bytes, secs[0], cpu[0]);
    AddImageResult(results, t, "TFRecord + .idx", "baseline", np, np_bytes, secs[1], cpu[1]);
    AddImageResult(results, t, "plain files", "baseline", np, np_bytes, secs[2], cpu[2]);
    AddImageResult(results, t, "same ops on in-memory JPEGs", "ceiling", np, np_bytes, secs[3], cpu[3]);
    AddImageResult(results, t, "bare decode+resize, in memory", "ceiling", np, np_bytes, secs[4], cpu[4]);
  }
  RemoveAll(out);
}

}  // namespace mindrecord::bench
