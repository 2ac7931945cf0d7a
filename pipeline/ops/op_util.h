// Shared helpers for tensor ops: JSON parameter parsing, image-shape checks,
// portable random draws. (OpenCV helpers live in cv_util.h, internal.)
// Thread safety: the structs are plain values; every function is reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord::ops {

// Interpolation modes accepted by Resize-like ops.
enum class Interpolation : uint8_t { kNearest = 0, kBilinear = 1, kBicubic = 2, kArea = 3 };
const char* InterpolationName(Interpolation i);
Result<Interpolation> ParseInterpolation(std::string_view name);

// A (height, width) pair; `from_int` records a single-int spec.
struct Size2 {
  int64_t h = 0;
  int64_t w = 0;
  bool from_int = false;
  nlohmann::json ToJson() const;
};

// Parameter readers: errors are InvalidArgument "<op>: <param>: ...".
// The error for parameter `key` of `op`: "<op>: parameter '<key>' <what>".
Status BadParameter(const std::string& op, const char* key, const std::string& what);
// "size": int or [h, w], all > 0.
Result<Size2> GetSize(const nlohmann::json& spec, const std::string& op, const char* key, bool required);
// An integer in [lo, hi]: a JSON integer or an integral finite number (3.0),
// range-checked before the conversion; `def` when absent, required without one.
// [lo, hi] must lie within int's range.
Result<int> GetIntIn(const nlohmann::json& spec, const std::string& op, const char* key, int64_t lo, int64_t hi,
                     std::optional<int> def = std::nullopt);
// A number; `def` when absent.
Result<double> GetNumber(const nlohmann::json& spec, const std::string& op, const char* key, double def);
// A probability in [0, 1]; `def` when absent.
Result<double> GetProbability(const nlohmann::json& spec, const std::string& op, const char* key = "p",
                              double def = 0.5);
Result<bool> GetBool(const nlohmann::json& spec, const std::string& op, const char* key, bool def);
Result<std::string> GetString(const nlohmann::json& spec, const std::string& op, const char* key,
                              const std::string& def);
// A list of numbers (or one number, giving a list of one); `def` when absent.
Result<std::vector<double>> GetNumbers(const nlohmann::json& spec, const std::string& op, const char* key,
                                       const std::vector<double>& def);
// Fails on keys outside `known` (besides "op"), so typos are not ignored.
Status CheckKeys(const nlohmann::json& spec, const std::string& op, std::initializer_list<const char*> known);

// A decoded image tensor: HWC (or HW, then c == 1 and has_channel_dim false).
struct ImageDims {
  int h = 0;
  int w = 0;
  int c = 0;
  bool has_channel_dim = true;
};
// Checks that `t` is an HW/HWC image of uint8 (or float32 when allowed).
Result<ImageDims> CheckImage(const Tensor& t, const std::string& op, bool allow_float);
// A new tensor of the same layout as `d` with new height/width.
Tensor MakeImage(TensorType type, const ImageDims& d, int h, int w);

// Portable draws (same numbers on every platform and standard library).
double RandUniform(std::mt19937_64& rng, double lo, double hi);  // [lo, hi)
int64_t RandInt(std::mt19937_64& rng, int64_t lo, int64_t hi);   // [lo, hi], inclusive
double RandNormal(std::mt19937_64& rng);                          // N(0, 1), Box-Muller (2 draws)
// Gamma(alpha, 1), alpha > 0 (Marsaglia-Tsang; alpha < 1 via the boost
// Gamma(alpha + 1) * U^(1 / alpha)), and Beta(a, b) = X / (X + Y) with
// X ~ Gamma(a), Y ~ Gamma(b). The number of draws varies (rejection).
double RandGamma(std::mt19937_64& rng, double alpha);
double RandBeta(std::mt19937_64& rng, double a, double b);

}  // namespace mindrecord::ops
