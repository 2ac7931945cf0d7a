#include "pipeline/ops/audio_cmn.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

Result<std::unique_ptr<TensorOp>> SlidingWindowCmnOp::Make(const nlohmann::json& spec) {
  const std::string op = "SlidingWindowCmn";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"cmn_window", "min_cmn_window", "center", "norm_vars"}));
  MR_ASSIGN_OR_RETURN(int window, GetIntIn(spec, op, "cmn_window", 0, INT32_MAX, 600));
  MR_ASSIGN_OR_RETURN(int min_window, GetIntIn(spec, op, "min_cmn_window", 0, INT32_MAX, 100));
  MR_ASSIGN_OR_RETURN(bool center, GetBool(spec, op, "center", false));
  MR_ASSIGN_OR_RETURN(bool norm_vars, GetBool(spec, op, "norm_vars", false));
  if (center && window == 0) return BadParameter(op, "cmn_window", "must be above 0 when centred");
  return std::unique_ptr<TensorOp>(new SlidingWindowCmnOp(window, min_window, center, norm_vars));
}

Result<Tensor> SlidingWindowCmnOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 2, "<..., time, freq>"));
  const Shape& s = x.shape();
  const int64_t frames = s[s.size() - 2], feats = s.back(), count = OuterCount(s, 2);
  // The window [start, end) of each frame.
  std::vector<int64_t> starts(static_cast<size_t>(frames)), ends(static_cast<size_t>(frames));
  for (int64_t t = 0; t < frames; ++t) {
    int64_t start = center_ ? t - window_ / 2 : t - window_;
    int64_t end = center_ ? start + window_ : t + 1;
    if (start < 0) {
      end -= start;
      start = 0;
    }
    if (!center_ && end > t) end = std::max(t + 1, min_window_);
    if (end > frames) {
      start = std::max<int64_t>(0, start - (end - frames));
      end = frames;
    }
    starts[static_cast<size_t>(t)] = start;
    ends[static_cast<size_t>(t)] = end;
  }
  Tensor out = Tensor::Make(x.type(), s);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    // Prefix sums of each feature (and of its squares) over the frames.
    std::vector<double> sum(static_cast<size_t>((frames + 1) * feats)), sq(sum.size());
    for (int64_t c = 0; c < count; ++c) {
      const T* in = x.data_as<T>() + c * frames * feats;
      T* o = out.mutable_data_as<T>() + c * frames * feats;
      for (int64_t t = 0; t < frames; ++t) {
        for (int64_t f = 0; f < feats; ++f) {
          const double v = static_cast<double>(in[t * feats + f]);
          sum[static_cast<size_t>((t + 1) * feats + f)] = sum[static_cast<size_t>(t * feats + f)] + v;
          sq[static_cast<size_t>((t + 1) * feats + f)] = sq[static_cast<size_t>(t * feats + f)] + v * v;
        }
      }
      for (int64_t t = 0; t < frames; ++t) {
        const int64_t a = starts[static_cast<size_t>(t)], b = ends[static_cast<size_t>(t)];
        const double n = static_cast<double>(b - a);
        for (int64_t f = 0; f < feats; ++f) {
          const double total = sum[static_cast<size_t>(b * feats + f)] - sum[static_cast<size_t>(a * feats + f)];
          double v = static_cast<double>(in[t * feats + f]) - total / n;
          if (norm_vars_) {
            if (b - a == 1) {
              v = 0;
            } else {
              const double squares = sq[static_cast<size_t>(b * feats + f)] - sq[static_cast<size_t>(a * feats + f)];
              v /= std::sqrt(squares / n - (total / n) * (total / n));
            }
          }
          o[t * feats + f] = static_cast<T>(v);
        }
      }
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  if (s.size() == 2 && frames == 1) {
    Shape squeezed;
    for (int64_t d : s)
      if (d != 1) squeezed.push_back(d);
    return out.Reshaped(squeezed);
  }
  return out;
}

}  // namespace mindrecord::ops
