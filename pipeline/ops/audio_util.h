// What MindSpore's audio ops (mindspore.dataset.audio) share: the float
// input they compute on, padding along the time axis, windows, and the mel,
// linear and DCT matrices (also handed to Python as audio.melscale_fbanks,
// linear_fbanks and create_dct).
// Thread safety: plain values and reentrant functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"
#include "pipeline/tensor.h"

namespace mindrecord::ops {

inline constexpr double kAudioPi = 3.14159265358979323846;

// A numeric input as audio ops compute on it (taken by value: an op that
// moves its input in may then write in place): float32 and float64 as they
// are, the other numeric types (bool, integers) converted to float32.
// InvalidArgument naming `op` for bytes, text, or fewer than `min_rank`
// dimensions (`layout` says which, e.g. "<..., time>").
Result<Tensor> AudioInput(Tensor t, const std::string& op, size_t min_rank, const char* layout);

// f(x) (a double function) on every element of the float form of `input`
// (AudioInput).
template <typename F>
Result<Tensor> MapElements(Tensor input, const std::string& op, size_t min_rank, const char* layout, F f) {
  MR_ASSIGN_OR_RETURN(Tensor x, AudioInput(std::move(input), op, min_rank, layout));
  const int64_t n = x.num_elements();
  if (x.type() == TensorType::kFloat64) {
    double* d = x.mutable_data_as<double>();
    for (int64_t i = 0; i < n; ++i) d[i] = f(d[i]);
  } else {
    float* d = x.mutable_data_as<float>();
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(f(static_cast<double>(d[i])));
  }
  return x;
}

// Elements of `shape` without its last `inner` dimensions (the rows or
// matrices an op runs over one at a time).
int64_t OuterCount(const Shape& shape, size_t inner);

// InvalidArgument naming `op` when a result would hold more than 2^31
// elements (a spectrogram's size grows with the product of its parameters).
Status CheckOutputElements(const std::string& op, double elements);

// BorderType: how a row is extended past its ends (numpy's pad modes).
enum class Border : uint8_t { kConstant, kEdge, kReflect, kSymmetric };
Result<Border> GetBorder(const nlohmann::json& spec, const std::string& op, const char* key, Border def);
const char* BorderName(Border b);
// The index in [0, n) that index i of a row of n samples extended with
// `mode` reads (i itself inside the row), or -1 for a zero (kConstant).
// n > 0.
int64_t BorderIndex(int64_t i, int64_t n, Border mode);

// WindowType: periodic windows of length n (MindSpore's, as torch's
// *_window(periodic=True)); KAISER with beta 12. n == 1 gives [1].
enum class Window : uint8_t { kHann, kHamming, kBlackman, kBartlett, kKaiser };
Result<Window> GetWindow(const nlohmann::json& spec, const std::string& op, const char* key, Window def);
const char* WindowName(Window w);
std::vector<double> MakeWindow(Window w, int64_t n);

// Triangular filters, row-major [n_freqs, n_filters], over n_freqs bins
// spread evenly over [0, sample_rate / 2]: melscale_fbanks (the filters'
// corners evenly spaced in mels: HTK's or Slaney's scale; `slaney_norm`
// scales each to unit area) and linear_fbanks (corners evenly spaced in Hz).
std::vector<double> MelFilterbank(int64_t n_freqs, double f_min, double f_max, int64_t n_mels, int64_t sample_rate,
                                  bool slaney_norm, bool slaney_scale);
std::vector<double> LinearFilterbank(int64_t n_freqs, double f_min, double f_max, int64_t n_filters,
                                     int64_t sample_rate);
// DCT-II matrix, row-major [n_mels, n_mfcc]; `ortho` normalizes it.
std::vector<double> DctMatrix(int64_t n_mfcc, int64_t n_mels, bool ortho);

// A float tensor of `shape` (float64 when `f64`) holding `values`.
Tensor MatrixTensor(const std::vector<double>& values, Shape shape, bool f64);

// The matrices above from a JSON request, as Python's audio utils ask:
// {"matrix":"melscale_fbanks","n_freqs","f_min","f_max","n_mels",
// "sample_rate","norm":"none"|"slaney","mel_type":"htk"|"slaney"},
// {"matrix":"linear_fbanks",...,"n_filter"}, {"matrix":"create_dct",
// "n_mfcc","n_mels","norm":"none"|"ortho"}; float32 results.
Result<Tensor> AudioMatrix(const nlohmann::json& request);

}  // namespace mindrecord::ops
