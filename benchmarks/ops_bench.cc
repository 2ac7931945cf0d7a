// Image-op throughput on in-memory JPEGs (~100 KB, made from the COCO sample
// photos): the bare decode+resize loop (the CPU ceiling of issue 4) against
// the op chain Decode + RandomResizedCrop(224) + flip + Normalize, unfused and
// fused (DCT-scaled decode). One thread; items/s = images/s.
#include <benchmark/benchmark.h>
#include <turbojpeg.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/bench_images.h"
#include "pipeline/ops/fuse.h"
#include "pipeline/ops/jpeg.h"
#include "pipeline/ops/op.h"
#include "pipeline/ops/op_util.h"
#include "pipeline/ops/resize.h"

namespace mr = mindrecord;

namespace {

using mr::bench::EncodeJpeg;
using mr::bench::ReadFile;

// Inputs: random crops of the photos resized to 960x720, q95 (~100 KB each).
const std::vector<mr::Tensor>& Images() {
  static const std::vector<mr::Tensor> images = [] {
    std::vector<mr::Tensor> out;
    const std::vector<std::string> paths = mr::bench::CompatPhotoPaths();
    auto decode = mr::MakeOp({{"op", "Decode"}}).value();
    auto crop = mr::MakeOp({{"op", "RandomResizedCrop"}, {"size", {720, 960}}, {"scale", {0.5, 1.0}},
                             {"ratio", {1.2, 1.45}}, {"interpolation", "area"}}).value();
    std::mt19937_64 rng(1);
    size_t bytes = 0;
    for (const auto& p : paths) {
      auto img = decode->Apply(mr::Tensor::FromString(mr::TensorType::kBytes, ReadFile(p)), rng);
      if (!img.ok()) continue;
      for (int v = 0; v < 4; ++v) {
        auto c = crop->Apply(*img, rng);
        if (!c.ok()) continue;
        std::string jpg = EncodeJpeg(*c, 95);
        bytes += jpg.size();
        out.push_back(mr::Tensor::FromString(mr::TensorType::kBytes, std::move(jpg)));
      }
    }
    if (!out.empty())
      std::fprintf(stderr, "ops_bench: %zu JPEGs of 960x720, mean %.1f KB\n", out.size(),
                   bytes / 1024.0 / out.size());
    return out;
  }();
  return images;
}

const nlohmann::json kChain[] = {
    {{"op", "Decode"}},
    {{"op", "RandomResizedCrop"}, {"size", {224, 224}}, {"scale", {0.08, 1.0}}, {"ratio", {0.75, 1.333}},
     {"interpolation", "bilinear"}},
    {{"op", "RandomHorizontalFlip"}, {"p", 0.5}},
    {{"op", "Normalize"}, {"mean", {123.675, 116.28, 103.53}}, {"std", {58.395, 57.12, 57.375}}},
};

void RunChain(benchmark::State& state, const std::vector<nlohmann::json>& specs) {
  const auto& images = Images();
  if (images.empty()) {
    state.SkipWithError("no source photos");
    return;
  }
  std::vector<std::unique_ptr<mr::TensorOp>> ops;
  for (const auto& s : specs) ops.push_back(mr::MakeOp(s).value());
  uint64_t row = 0;
  for (auto _ : state) {
    mr::Tensor t = images[row % images.size()];
    for (size_t i = 0; i < ops.size(); ++i) {
      std::mt19937_64 rng(row * 1000003 + i);  // per row and op, as the runtime seeds it
      auto r = ops[i]->Apply(std::move(t), rng);
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        return;
      }
      t = std::move(r).value();
    }
    benchmark::DoNotOptimize(t.data());
    ++row;
  }
  state.SetItemsProcessed(state.iterations());
}

// The ceiling: full-size decode, then one resize to 224x224, nothing else.
void BM_BareDecodeResize(benchmark::State& state) {
  const auto& images = Images();
  if (images.empty()) return state.SkipWithError("no source photos");
  size_t i = 0;
  for (auto _ : state) {
    const mr::Tensor& jpg = images[i++ % images.size()];
    auto img = mr::ops::DecodeJpeg(jpg.data(), jpg.size_bytes(), mr::ops::JpegScale{1, 1});
    mr::ops::ImageDims d{static_cast<int>(img->shape()[0]), static_cast<int>(img->shape()[1]), 3, true};
    auto out = mr::ops::ResizeImage(*img, d, 224, 224, mr::ops::Interpolation::kBilinear, "bench");
    benchmark::DoNotOptimize(out->data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BareDecodeResize);

// Bare decode alone (full size).
void BM_BareDecodeOnly(benchmark::State& state) {
  const auto& images = Images();
  if (images.empty()) return state.SkipWithError("no source photos");
  size_t i = 0;
  for (auto _ : state) {
    const mr::Tensor& jpg = images[i++ % images.size()];
    auto img = mr::ops::DecodeJpeg(jpg.data(), jpg.size_bytes(), mr::ops::JpegScale{1, 1});
    benchmark::DoNotOptimize(img->data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BareDecodeOnly);

void BM_ChainUnfused(benchmark::State& state) {
  RunChain(state, std::vector<nlohmann::json>(std::begin(kChain), std::end(kChain)));
}
BENCHMARK(BM_ChainUnfused);

void BM_ChainFused(benchmark::State& state) {
  RunChain(state, mr::FuseOps(std::vector<nlohmann::json>(std::begin(kChain), std::end(kChain))));
}
BENCHMARK(BM_ChainFused);

void BM_ChainFusedAllFactors(benchmark::State& state) {
  std::vector<nlohmann::json> specs(std::begin(kChain), std::end(kChain));
  specs[0]["all_factors"] = true;
  RunChain(state, mr::FuseOps(specs));
}
BENCHMARK(BM_ChainFusedAllFactors);

// The fused decode + crop alone (no flip/normalize).
void BM_FusedDecodeRrcOnly(benchmark::State& state) {
  RunChain(state, mr::FuseOps({kChain[0], kChain[1]}));
}
BENCHMARK(BM_FusedDecodeRrcOnly);

// Single ops on an already decoded 960x720 image (where the time goes).
void BM_SingleOp(benchmark::State& state, nlohmann::json spec) {
  const auto& images = Images();
  if (images.empty()) return state.SkipWithError("no source photos");
  std::mt19937_64 rng(0);
  auto dec = mr::MakeOp({{"op", "Decode"}}).value();
  mr::Tensor img = dec->Apply(images[0], rng).value();
  if (spec["op"] == "Normalize" || spec["op"] == "RandomHorizontalFlip" || spec["op"] == "HWC2CHW" ||
      spec["op"] == "RandomColorAdjust" || spec["op"] == "RandomRotation" || spec["op"] == "RandAugment" ||
      spec["op"] == "AutoAugment")
    img = mr::MakeOp({{"op", "Resize"}, {"size", {224, 224}}}).value()->Apply(img, rng).value();
  auto op = mr::MakeOp(spec).value();
  for (auto _ : state) {
    auto r = op->Apply(img, rng);
    benchmark::DoNotOptimize(r->data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_SingleOp, RandomResizedCrop224, kChain[1]);
BENCHMARK_CAPTURE(BM_SingleOp, Flip224, nlohmann::json{{"op", "RandomHorizontalFlip"}, {"p", 1.0}});
BENCHMARK_CAPTURE(BM_SingleOp, Normalize224, kChain[3]);
BENCHMARK_CAPTURE(BM_SingleOp, HWC2CHW224, nlohmann::json{{"op", "HWC2CHW"}});
// The augmentation recipes' heavy ops, per 224x224 image.
BENCHMARK_CAPTURE(BM_SingleOp, RandomColorAdjust224,
                  nlohmann::json{{"op", "RandomColorAdjust"}, {"brightness", 0.4}, {"contrast", 0.4},
                                 {"saturation", 0.4}, {"hue", 0.1}});
BENCHMARK_CAPTURE(BM_SingleOp, RandomRotation224, nlohmann::json{{"op", "RandomRotation"}, {"degrees", 15}});
BENCHMARK_CAPTURE(BM_SingleOp, RandAugment224, nlohmann::json{{"op", "RandAugment"}});
BENCHMARK_CAPTURE(BM_SingleOp, AutoAugment224, nlohmann::json{{"op", "AutoAugment"}});

}  // namespace

BENCHMARK_MAIN();
