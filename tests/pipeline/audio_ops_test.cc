// The audio ops (pipeline/ops/audio_*.h): specs round-trip, a spectrogram
// against a direct DFT, inputs left alone, sizes and parameters refused with
// errors naming the op. Values against MindSpore's tests are in
// python/tests/test_audio.py.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/ops/audio_util.h"
#include "tests/pipeline/ops_test_util.h"

namespace mindrecord {
namespace {

using testing::Op;
using testing::RunOp;

Tensor AudioFloats(const std::vector<float>& v, Shape shape) {
  Tensor t = Tensor::Make(TensorType::kFloat32, std::move(shape));
  std::copy(v.begin(), v.end(), t.mutable_data_as<float>());
  return t;
}

std::vector<float> AudioValues(const Tensor& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.num_elements());
}

std::string AudioErrorOf(const nlohmann::json& spec, Tensor in) {
  auto made = MakeOp(spec);
  if (!made.ok()) return made.status().message();
  std::mt19937_64 rng(0);
  auto r = (*made)->Apply(std::move(in), rng);
  return r.ok() ? "" : r.status().message();
}

const std::vector<nlohmann::json> kSpecs = {
    {{"op", "Spectrogram"}, {"n_fft", 16}, {"power", 0}, {"window", "kaiser"}, {"pad_mode", "symmetric"}},
    {{"op", "MelScale"}, {"n_mels", 4}, {"sample_rate", 100}, {"n_stft", 9}},
    {{"op", "MelSpectrogram"}, {"sample_rate", 8000}, {"n_fft", 32}, {"n_mels", 6}, {"mel_type", "slaney"}},
    {{"op", "MFCC"}, {"sample_rate", 8000}, {"n_mfcc", 4}, {"mel", {{"n_fft", 32}, {"n_mels", 6}}}},
    {{"op", "AmplitudeToDB"}, {"stype", "magnitude"}},
    {{"op", "DBToAmplitude"}, {"ref", 1.0}, {"power", 0.5}},
    {{"op", "ComplexNorm"}, {"power", 2.0}},
    {{"op", "Angle"}},
    {{"op", "Magphase"}},
    {{"op", "TimeMasking"}, {"iid_masks", true}, {"time_mask_param", 3}},
    {{"op", "FrequencyMasking"}, {"freq_mask_param", 2}, {"mask_start", 1}},
    {{"op", "MaskAlongAxis"}, {"mask_start", 0}, {"mask_width", 2}, {"mask_value", 1.5}, {"axis", 1}},
    {{"op", "MaskAlongAxisIID"}, {"mask_param", 2}, {"mask_value", 0}, {"axis", 2}},
    {{"op", "Gain"}, {"gain_db", -3}},
    {{"op", "Vol"}, {"gain", 2}, {"gain_type", "power"}},
    {{"op", "DCShift"}, {"shift", -0.5}, {"limiter_gain", 0.1}},
    {{"op", "Fade"}, {"fade_in_len", 2}, {"fade_out_len", 3}, {"fade_shape", "half_sine"}},
    {{"op", "MuLawEncoding"}},
    {{"op", "MuLawDecoding"}, {"quantization_channels", 16}},
    {{"op", "ComputeDeltas"}, {"win_length", 3}},
    {{"op", "LFilter"}, {"a_coeffs", {1.0, -0.5}}, {"b_coeffs", {0.5, 0.5}}},
    {{"op", "Filtfilt"}, {"a_coeffs", {1.0, -0.5}}, {"b_coeffs", {0.5, 0.5}}, {"clamp", false}},
    {{"op", "Biquad"}, {"b0", 1}, {"b1", 0}, {"b2", 0}, {"a0", 2}, {"a1", 0}, {"a2", 0}},
    {{"op", "AllpassBiquad"}, {"sample_rate", 8000}, {"central_freq", 300}},
    {{"op", "BandBiquad"}, {"sample_rate", 8000}, {"central_freq", 300}, {"noise", true}},
    {{"op", "BandpassBiquad"}, {"sample_rate", 8000}, {"central_freq", 300}, {"const_skirt_gain", true}},
    {{"op", "BandrejectBiquad"}, {"sample_rate", 8000}, {"central_freq", 300}},
    {{"op", "BassBiquad"}, {"sample_rate", 8000}, {"gain", 6}},
    {{"op", "EqualizerBiquad"}, {"sample_rate", 8000}, {"center_freq", 500}, {"gain", 3}},
    {{"op", "HighpassBiquad"}, {"sample_rate", 8000}, {"cutoff_freq", 200}},
    {{"op", "LowpassBiquad"}, {"sample_rate", 8000}, {"cutoff_freq", 2000}, {"Q", 0.5}},
    {{"op", "TrebleBiquad"}, {"sample_rate", 8000}, {"gain", -6}},
    {{"op", "DeemphBiquad"}, {"sample_rate", 48000}},
    {{"op", "RiaaBiquad"}, {"sample_rate", 96000}},
    {{"op", "LFCC"}, {"sample_rate", 8000}, {"n_filter", 10}, {"n_lfcc", 4}, {"spec", {{"n_fft", 32}}}},
    {{"op", "SpectralCentroid"}, {"sample_rate", 8000}, {"n_fft", 16}},
    {{"op", "Resample"}, {"orig_freq", 48000}, {"new_freq", 44100}, {"resample_method", "kaiser_window"}},
    {{"op", "Resample"}, {"orig_freq", 8000}, {"new_freq", 8000}},
    {{"op", "SlidingWindowCmn"}, {"cmn_window", 5}, {"min_cmn_window", 2}, {"norm_vars", true}},
    {{"op", "TimeStretch"}, {"n_freq", 20}, {"fixed_rate", 1.5}},
    {{"op", "InverseSpectrogram"}, {"n_fft", 38}, {"hop_length", 4}},
    {{"op", "PitchShift"}, {"sample_rate", 8000}, {"n_steps", 2}, {"n_fft", 32}},
    {{"op", "GriffinLim"}, {"n_fft", 14}, {"hop_length", 2}, {"n_iter", 3}},
    {{"op", "Contrast"}, {"enhancement_amount", 40}},
    {{"op", "Overdrive"}, {"gain", 10}, {"color", 5}},
    {{"op", "Phaser"}, {"sample_rate", 8000}, {"delay_ms", 1.0}, {"sinusoidal", false}},
    {{"op", "Flanger"}, {"sample_rate", 8000}, {"regen", -20}, {"interpolation", "quadratic"}},
    {{"op", "Dither"}, {"density_function", "GPDF"}, {"noise_shaping", true}},
    {{"op", "PhaseVocoder"}, {"rate", 0.7}, {"phase_advance", std::vector<double>(20, 0.5)}},
    {{"op", "DetectPitchFrequency"}, {"sample_rate", 400}, {"frame_time", 0.02}, {"win_length", 1},
     {"freq_low", 50}, {"freq_high", 200}},
    {{"op", "InverseMelScale"}, {"n_stft", 12}, {"n_mels", 8}, {"sample_rate", 800}, {"max_iter", 20}},
    {{"op", "Vad"}, {"sample_rate", 4000}, {"trigger_level", 0.5}, {"search_time", 0.05}, {"measure_freq", 40}},
};

// A [2, 8, 40] input: two channels of 8 rows, each a waveform or a
// spectrogram row, read-only as a mapped shard's rows are.
Tensor AudioInputView(std::vector<float>* values) {
  values->resize(2 * 8 * 40);
  for (size_t i = 0; i < values->size(); ++i) (*values)[i] = static_cast<float>(std::sin(0.37 * double(i)) * 0.8);
  auto owner = std::make_shared<std::vector<float>>(*values);
  return Tensor::View(TensorType::kFloat32, {2, 8, 40}, owner, reinterpret_cast<const uint8_t*>(owner->data()));
}

TEST(AudioOpsTest, EverySpecRoundTripsAndLeavesAReadOnlyInputAlone) {
  for (const auto& spec : kSpecs) {
    SCOPED_TRACE(spec.dump());
    auto op = Op(spec);
    ASSERT_TRUE(op);
    const nlohmann::json again = op->ToJson();
    EXPECT_EQ(Op(again)->ToJson(), again);
    std::vector<float> values;
    const Tensor full = AudioInputView(&values);
    const std::string name = spec["op"];
    Tensor in = full;
    if (name == "ComplexNorm" || name == "Angle" || name == "Magphase" || name == "TimeStretch" ||
        name == "InverseSpectrogram" || name == "PhaseVocoder")
      in = full.Reshaped({2, 20, 8, 2});
    if (name == "MelScale") in = full.Region(0, TensorType::kFloat32, {2, 9, 10});
    if (name == "Flanger") in = full.Reshaped({4, 4, 40});
    std::mt19937_64 rng(3);
    auto out = op->ApplyColumns({in}, rng);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(AudioValues(full), values) << "the op wrote into its input";
  }
}

TEST(AudioOpsTest, SpectrogramIsTheDftOfWindowedFrames) {
  std::vector<float> x(50);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::cos(0.9 * double(i)) + 0.1 * double(i % 7));
  auto op = Op({{"op", "Spectrogram"}, {"n_fft", 12}, {"hop_length", 5}, {"center", false}, {"power", 1.0},
                {"window", "hamming"}});
  Tensor out = RunOp(*op, AudioFloats(x, {50}));
  const int64_t frames = (50 - 12) / 5 + 1;
  ASSERT_EQ(out.shape(), Shape({7, frames}));
  for (int64_t k = 0; k < 7; ++k) {
    for (int64_t j = 0; j < frames; ++j) {
      std::complex<double> sum = 0;
      for (int n = 0; n < 12; ++n) {
        const double w = 0.54 - 0.46 * std::cos(2 * M_PI * n / 12);
        sum += x[static_cast<size_t>(j * 5 + n)] * w * std::polar(1.0, -2 * M_PI * double(k * n) / 12);
      }
      EXPECT_NEAR(out.data_as<float>()[k * frames + j], std::abs(sum), 1e-4) << k << "," << j;
    }
  }
}

TEST(AudioOpsTest, PaddingModesExtendRowsAsNumpyDoes) {
  const float x[] = {1, 2, 3, 4};
  auto pad = [&](ops::Border b) {
    std::vector<float> out;
    for (int64_t i = -4; i < 8; ++i) {
      const int64_t j = ops::BorderIndex(i, 4, b);
      out.push_back(j < 0 ? 0.f : x[j]);
    }
    return out;
  };
  EXPECT_EQ(pad(ops::Border::kReflect), (std::vector<float>{3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2}));
  EXPECT_EQ(pad(ops::Border::kSymmetric), (std::vector<float>{4, 3, 2, 1, 1, 2, 3, 4, 4, 3, 2, 1}));
  EXPECT_EQ(pad(ops::Border::kEdge), (std::vector<float>{1, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4}));
  EXPECT_EQ(pad(ops::Border::kConstant), (std::vector<float>{0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0}));
  for (int64_t i = -3; i < 4; ++i) EXPECT_EQ(ops::BorderIndex(i, 1, ops::Border::kReflect), 0);
}

TEST(AudioOpsTest, BadInputsAndParametersNameTheOp) {
  Tensor wave = AudioFloats(std::vector<float>(100, 0.5f), {100});
  EXPECT_NE(AudioErrorOf({{"op", "Spectrogram"}, {"n_fft", 400}, {"center", false}}, wave)
                .find("Spectrogram: n_fft 400 is more than the 100 samples"),
            std::string::npos);
  // A result larger than 2^31 elements is refused before it is allocated.
  Tensor long_wave = Tensor::Make(TensorType::kFloat32, {1 << 22});
  std::fill(long_wave.mutable_data_as<float>(), long_wave.mutable_data_as<float>() + (1 << 22), 0.f);
  EXPECT_NE(AudioErrorOf({{"op", "Spectrogram"}, {"n_fft", 4096}, {"hop_length", 1}}, long_wave).find("more than 2^31"),
            std::string::npos);
  EXPECT_NE(AudioErrorOf({{"op", "Gain"}}, Tensor::FromString(TensorType::kBytes, "abc")).find("Gain: expected a numeric"),
            std::string::npos);
  EXPECT_NE(AudioErrorOf({{"op", "MelScale"}, {"n_stft", 5}}, AudioFloats(std::vector<float>(12), {3, 4}))
                .find("expected 5 frequency bins"),
            std::string::npos);
  EXPECT_NE(AudioErrorOf({{"op", "Fade"}, {"fade_in_len", 200}}, wave).find("Fade: fade_in_len 200"), std::string::npos);
  for (const nlohmann::json& bad :
       {nlohmann::json{{"op", "Spectrogram"}, {"n_fft", 8}, {"win_length", 9}},
        nlohmann::json{{"op", "Spectrogram"}, {"window", "triangle"}},
        nlohmann::json{{"op", "MelSpectrogram"}, {"power", 0}},
        nlohmann::json{{"op", "MelScale"}, {"f_min", 100}, {"f_max", 50}},
        nlohmann::json{{"op", "MFCC"}, {"n_mfcc", 50}, {"mel", {{"n_mels", 40}}}},
        nlohmann::json{{"op", "Vol"}, {"gain", -1}},
        nlohmann::json{{"op", "DCShift"}, {"shift", 3}},
        nlohmann::json{{"op", "LFilter"}, {"a_coeffs", {0, 1}}, {"b_coeffs", {1, 1}}},
        nlohmann::json{{"op", "LFilter"}, {"a_coeffs", {1}}, {"b_coeffs", {1, 1}}},
        nlohmann::json{{"op", "AllpassBiquad"}, {"sample_rate", 0}, {"central_freq", 100}},
        nlohmann::json{{"op", "RiaaBiquad"}, {"sample_rate", 22050}},
        nlohmann::json{{"op", "Gain"}, {"gain", 1}},
        nlohmann::json{{"op", "Resample"}, {"rolloff", 1.5}},
        nlohmann::json{{"op", "Resample"}, {"orig_freq", 60}, {"beta", 5979492}},
        nlohmann::json{{"op", "SlidingWindowCmn"}, {"cmn_window", 0}, {"center", true}},
        nlohmann::json{{"op", "LFCC"}, {"f_min", 100}, {"f_max", 50}}}) {
    auto made = MakeOp(bad);
    EXPECT_FALSE(made.ok()) << bad.dump();
    if (!made.ok()) EXPECT_EQ(made.status().message().rfind(bad["op"].get<std::string>(), 0), 0u) << made.status().message();
  }
}

TEST(AudioOpsTest, IidMasksAreDrawnFromTheRowsSeed) {
  auto op = Op({{"op", "TimeMasking"}, {"iid_masks", true}, {"time_mask_param", 10}});
  EXPECT_TRUE(op->is_random());
  Tensor ones = AudioFloats(std::vector<float>(4 * 30, 1.f), {4, 30});
  std::set<std::vector<float>> seen;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Tensor a = RunOp(*op, ones, seed), b = RunOp(*op, ones, seed);
    EXPECT_EQ(AudioValues(a), AudioValues(b));
    // One mask for all rows: every row has the same zero columns.
    for (int r = 1; r < 4; ++r)
      for (int t = 0; t < 30; ++t) EXPECT_EQ(AudioValues(a)[r * 30 + t], AudioValues(a)[t]);
    seen.insert(AudioValues(a));
  }
  EXPECT_GT(seen.size(), 5u);
  EXPECT_EQ(AudioValues(ones), std::vector<float>(120, 1.f));
}

TEST(AudioOpsTest, OneOpOnManyThreadsGivesEachRowsOwnResult) {
  // Workers share an op; each keeps its own DFT scratch (thread_local).
  auto op = Op({{"op", "MelSpectrogram"}, {"sample_rate", 8000}, {"n_fft", 64}, {"hop_length", 16}, {"n_mels", 12}});
  std::vector<Tensor> inputs, alone(8), together(8);
  for (int i = 0; i < 8; ++i) {
    std::vector<float> v(static_cast<size_t>(3000 + 500 * i));
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>(std::sin(0.01 * double(k) * (i + 1)));
    inputs.push_back(AudioFloats(v, {static_cast<int64_t>(v.size())}));
    alone[static_cast<size_t>(i)] = RunOp(*op, inputs.back());
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 8; i += 4) together[static_cast<size_t>(i)] = RunOp(*op, inputs[static_cast<size_t>(i)]);
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(AudioValues(together[i]), AudioValues(alone[i])) << i;
}

}  // namespace
}  // namespace mindrecord
