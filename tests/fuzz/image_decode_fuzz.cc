// The image decoding ops on untrusted bytes (a dataset's image column): the
// full decode, DCT-scaled decode, and the fused decode + resize / random
// resized crop, which decode only a window with libjpeg's scanline skipping
// (setjmp/longjmp error handling). First byte: which op and its size; the rest
// is the encoded image. Any input gives an image of the promised shape or an
// error, never a crash or an allocation beyond the pixel limit.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/ops/op.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

const std::vector<std::unique_ptr<mindrecord::TensorOp>>& Ops() {
  static const auto* ops = [] {
    auto* v = new std::vector<std::unique_ptr<mindrecord::TensorOp>>();
    for (const char* spec : {R"({"op": "Decode"})", R"({"op": "Decode", "target_size": 48})",
                             R"({"op": "DecodeResize", "size": [24, 40]})",
                             R"({"op": "DecodeRandomResizedCrop", "size": 32})"}) {
      auto op = mindrecord::MakeOp(nlohmann::json::parse(spec));
      if (!op.ok()) {
        std::fprintf(stderr, "%s: %s\n", spec, op.status().ToString().c_str());
        std::abort();
      }
      v->push_back(std::move(op).value());
    }
    return v;
  }();
  return *ops;
}

}  // namespace

MINDRECORD_FUZZ_TARGET(image_decode) {
  if (size < 1) return 0;
  const auto& op = *Ops()[data[0] % Ops().size()];
  mindrecord::Tensor in = mindrecord::Tensor::FromString(
      mindrecord::TensorType::kBytes, std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  std::mt19937_64 rng(data[0]);
  auto out = op.Apply(std::move(in), rng);
  if (!out.ok()) return 0;
  const auto& shape = out->shape();
  if (shape.size() != 3 || shape[2] != 3 || shape[0] <= 0 || shape[1] <= 0 ||
      out->size_bytes() != static_cast<size_t>(shape[0] * shape[1] * 3)) {
    std::fprintf(stderr, "%s gave a tensor of unexpected shape\n", op.name().c_str());
    std::abort();
  }
  if (op.name() == "DecodeResize" && (shape[0] != 24 || shape[1] != 40)) std::abort();
  if (op.name() == "DecodeRandomResizedCrop" && (shape[0] != 32 || shape[1] != 32)) std::abort();
  return 0;
}
