#include "pipeline/ops/audio_scale.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <opencv2/core.hpp>

#include "pipeline/ops/audio_util.h"
#include "pipeline/ops/op_util.h"

namespace mindrecord::ops {

namespace {

Result<double> PositiveParam(const nlohmann::json& spec, const std::string& op, const char* key, double def) {
  MR_ASSIGN_OR_RETURN(double v, GetNumber(spec, op, key, def));
  if (!(v > 0) || !std::isfinite(v)) return BadParameter(op, key, "must be a number > 0, got " + std::to_string(v));
  return v;
}

}  // namespace

template <typename T>
void ToDecibels(T* x, const Shape& shape, double multiplier, double db_multiplier, double top_db) {
  const int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
  // OpenCV's vectorized log, in T's precision (perf: glibc's scalar log10
  // was a fifth of a log-mel pipeline); values clamped at 1e-10 first, and
  // a scalar loop where some are infinite or NaN (which stay NaN).
  const T floor_value = static_cast<T>(1e-10);
  bool finite = true;
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    x[i] = v < floor_value ? floor_value : v;
    finite &= v <= std::numeric_limits<T>::max();  // false for NaN too
  }
  const double offset = multiplier * db_multiplier;
  if (finite) {
    constexpr int64_t kChunk = int64_t{1} << 20;
    constexpr int kType = std::is_same_v<T, double> ? CV_64F : CV_32F;
    for (int64_t at = 0; at < n; at += kChunk) {
      cv::Mat chunk(1, static_cast<int>(std::min(kChunk, n - at)), kType, x + at);
      cv::log(chunk, chunk);
    }
    const T scale = static_cast<T>(multiplier / std::log(10.0)), shift = static_cast<T>(offset);
    for (int64_t i = 0; i < n; ++i) x[i] = x[i] * scale - shift;
  } else {
    for (int64_t i = 0; i < n; ++i) x[i] = static_cast<T>(multiplier * std::log10(static_cast<double>(x[i])) - offset);
  }
  if (std::isnan(top_db) || n == 0) return;
  const size_t rank = shape.size();
  const int64_t groups = rank >= 3 ? OuterCount(shape, 3) : 1;
  const int64_t per = groups == 0 ? 0 : n / groups;
  for (int64_t g = 0; g < groups; ++g) {
    T* b = x + g * per;
    double top = -std::numeric_limits<double>::infinity();  // NaN values left out
    for (int64_t i = 0; i < per; ++i) top = std::max(top, static_cast<double>(b[i]));
    const double floor = top - top_db;
    for (int64_t i = 0; i < per; ++i) b[i] = static_cast<T>(std::max(static_cast<double>(b[i]), floor));
  }
}
template void ToDecibels<float>(float*, const Shape&, double, double, double);
template void ToDecibels<double>(double*, const Shape&, double, double, double);

Result<std::unique_ptr<TensorOp>> AmplitudeToDBOp::Make(const nlohmann::json& spec) {
  const std::string op = "AmplitudeToDB";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"stype", "ref_value", "amin", "top_db"}));
  MR_ASSIGN_OR_RETURN(std::string stype, GetString(spec, op, "stype", "power"));
  if (stype != "power" && stype != "magnitude")
    return BadParameter(op, "stype", "must be power or magnitude, got \"" + stype + "\"");
  MR_ASSIGN_OR_RETURN(double ref, PositiveParam(spec, op, "ref_value", 1.0));
  MR_ASSIGN_OR_RETURN(double amin, PositiveParam(spec, op, "amin", 1e-10));
  MR_ASSIGN_OR_RETURN(double top_db, PositiveParam(spec, op, "top_db", 80.0));
  return std::unique_ptr<TensorOp>(new AmplitudeToDBOp(stype == "magnitude", ref, amin, top_db));
}

nlohmann::json AmplitudeToDBOp::ToJson() const {
  return {{"op", "AmplitudeToDB"}, {"stype", magnitude_ ? "magnitude" : "power"}, {"ref_value", ref_},
          {"amin", amin_}, {"top_db", top_db_}};
}

Result<Tensor> AmplitudeToDBOp::Apply(Tensor input, std::mt19937_64&) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), 2, "<..., freq, time>"));
  const double m = magnitude_ ? 20.0 : 10.0, db = std::log10(std::max(amin_, ref_));
  if (x.type() == TensorType::kFloat64)
    ToDecibels(x.mutable_data_as<double>(), x.shape(), m, db, top_db_);
  else
    ToDecibels(x.mutable_data_as<float>(), x.shape(), m, db, top_db_);
  return x;
}

Result<std::unique_ptr<TensorOp>> DBToAmplitudeOp::Make(const nlohmann::json& spec) {
  MR_RETURN_IF_ERROR(CheckKeys(spec, "DBToAmplitude", {"ref", "power"}));
  for (const char* k : {"ref", "power"})
    if (!spec.contains(k)) return Status::InvalidArgument(std::string("DBToAmplitude: parameter '") + k + "' is required");
  MR_ASSIGN_OR_RETURN(double ref, GetNumber(spec, "DBToAmplitude", "ref", 1.0));
  MR_ASSIGN_OR_RETURN(double power, GetNumber(spec, "DBToAmplitude", "power", 1.0));
  return std::unique_ptr<TensorOp>(new DBToAmplitudeOp(ref, power));
}

Result<Tensor> DBToAmplitudeOp::Apply(Tensor input, std::mt19937_64&) const {
  const double ref = ref_, power = power_;
  return MapElements(std::move(input), name(), 1, "<..., time>",
                     [ref, power](double x) { return ref * std::pow(std::pow(10.0, 0.1 * x), power); });
}

Result<std::unique_ptr<TensorOp>> ComplexOp::Make(const nlohmann::json& spec) {
  const std::string op = spec.value("op", "");
  const What what = op == "Angle" ? What::kAngle : op == "Magphase" ? What::kMagphase : What::kNorm;
  if (what == What::kAngle) {
    MR_RETURN_IF_ERROR(CheckKeys(spec, op, {}));
    return std::unique_ptr<TensorOp>(new ComplexOp(what, 1.0));
  }
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"power"}));
  MR_ASSIGN_OR_RETURN(double power, GetNumber(spec, op, "power", 1.0));
  if (!(power >= 0) || !std::isfinite(power)) return BadParameter(op, "power", "must be a number >= 0");
  return std::unique_ptr<TensorOp>(new ComplexOp(what, power));
}

std::string ComplexOp::name() const {
  return what_ == What::kAngle ? "Angle" : what_ == What::kMagphase ? "Magphase" : "ComplexNorm";
}

nlohmann::json ComplexOp::ToJson() const {
  nlohmann::json j = {{"op", name()}};
  if (what_ != What::kAngle) j["power"] = power_;
  return j;
}

Result<std::vector<Tensor>> ComplexOp::Run(const Tensor& input) const {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), name(), what_ == What::kAngle ? 1 : 2, "<..., complex=2>"));
  if (x.shape().back() != 2)
    return Status::InvalidArgument(name() + ": expected an array of shape <..., complex=2> ([re, im] last), got " +
                                   x.DebugString());
  Shape out_shape(x.shape().begin(), x.shape().end() - 1);
  const int64_t n = x.num_elements() / 2;
  std::vector<Tensor> out;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* z = x.data_as<T>();
    if (what_ != What::kAngle) {
      Tensor mag = Tensor::Make(x.type(), out_shape);
      T* m = mag.mutable_data_as<T>();
      for (int64_t i = 0; i < n; ++i) {
        const double sq = static_cast<double>(z[2 * i]) * z[2 * i] + static_cast<double>(z[2 * i + 1]) * z[2 * i + 1];
        m[i] = static_cast<T>(power_ == 1.0 ? std::sqrt(sq) : power_ == 2.0 ? sq : std::pow(sq, 0.5 * power_));
      }
      out.push_back(std::move(mag));
    }
    if (what_ != What::kNorm) {
      Tensor phase = Tensor::Make(x.type(), out_shape);
      T* p = phase.mutable_data_as<T>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(std::atan2(z[2 * i + 1], z[2 * i]));
      out.push_back(std::move(phase));
    }
  };
  if (x.type() == TensorType::kFloat64) run(double{}); else run(float{});
  return out;
}

Result<Tensor> ComplexOp::Apply(Tensor input, std::mt19937_64&) const {
  if (what_ == What::kMagphase) return Status::Internal("Magphase gives two columns");
  MR_ASSIGN_OR_RETURN(std::vector<Tensor> out, Run(input));
  return std::move(out[0]);
}

Result<std::vector<Tensor>> ComplexOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  if (inputs.size() != 1) return Status::Internal(name() + ": takes one column");
  if (what_ != What::kMagphase) return TensorOp::ApplyColumns(std::move(inputs), rng);
  return Run(inputs[0]);
}

}  // namespace mindrecord::ops
