#include "pipeline/ops/audio_dither.h"

#include <cmath>
#include <random>
#include <vector>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {
constexpr const char* kDensities[] = {"TPDF", "RPDF", "GPDF"};
}  // namespace

Result<std::unique_ptr<TensorOp>> DitherOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "Dither", {"density_function", "noise_shaping"}));
  MR_ASSIGN_OR_RETURN(std::string density, GetString(spec, "Dither", "density_function", "TPDF"));
  MR_ASSIGN_OR_RETURN(bool shaping, GetBool(spec, "Dither", "noise_shaping", false));
  for (int i = 0; i < 3; ++i) {
    if (density == kDensities[i]) return std::unique_ptr<TensorOp>(new DitherOp(static_cast<Density>(i), shaping));
  }
  return BadParameter("Dither", "density_function", "must be TPDF, RPDF or GPDF, got \"" + density + "\"");
}

nlohmann::json DitherOp::ToJson() const {
  return {{"op", "Dither"}, {"density_function", kDensities[static_cast<int>(density_)]}, {"noise_shaping", shaping_}};
}

Result<Tensor> DitherOp::Apply(Tensor input, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 1, "<..., time>"));
  const int64_t len = x.shape().back(), rows = OuterCount(x.shape(), 1);
  // MindSpore's TPDF noise: the periodic Bartlett window, in float32 (0 for one sample).
  std::vector<float> bartlett;
  if (density_ == Density::kTpdf) {
    for (int64_t n = 0; n < len; ++n) {
      bartlett.push_back(len == 1 ? 0.0f
                                  : 1.0f - std::fabs(2.0f * static_cast<float>(n) / static_cast<float>(len) - 1.0f));
    }
  }
  std::uniform_real_distribution<double> uniform(-0.5, 0.5);
  std::normal_distribution<double> normal(0.0, 0.5);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    T* d = x.mutable_data_as<T>();
    for (int64_t r = 0; r < rows; ++r) {
      T* row = d + r * len;
      T error = 0;  // the previous sample's quantization error (noise shaping)
      for (int64_t i = 0; i < len; ++i) {
        const T noise = density_ == Density::kTpdf   ? static_cast<T>(bartlett[static_cast<size_t>(i)])
                        : density_ == Density::kRpdf ? static_cast<T>(uniform(rng))
                                                     : static_cast<T>(normal(rng));
        const T q = std::round(row[i] * T(32766) + noise) / T(32768);
        const T e = q - row[i];
        row[i] = shaping_ ? q + error : q;
        error = e;
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return x;
}

}  // namespace mindrecord::ops
