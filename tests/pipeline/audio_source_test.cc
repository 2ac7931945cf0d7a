// Audio datasets from C++: sound files decoded (audio_file.h) with
// MindSpore's 16-bit scaling, segments cut as MindSpore's TED-LIUM reader
// cuts them, containers other than WAV / SPHERE refused before libsndfile
// parses them; and an "audio" leaf in a plan read through Pipeline.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "pipeline/nodes/audio_file.h"
#include "pipeline/nodes/audio_source.h"
#include "pipeline/pipeline.h"
#include "pipeline/plan.h"

namespace mindrecord {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

void Put32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}
void Put16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v));
  s.push_back(static_cast<char>(v >> 8));
}

// A canonical 16-bit PCM WAV of `samples` (frames interleaved).
std::string Wav(const std::vector<int16_t>& samples, int channels = 1, uint32_t rate = 16000) {
  std::string data;
  for (int16_t v : samples) Put16(data, static_cast<uint16_t>(v));
  std::string s = "RIFF";
  Put32(s, static_cast<uint32_t>(36 + data.size()));
  s += "WAVEfmt ";
  Put32(s, 16);
  Put16(s, 1);
  Put16(s, static_cast<uint16_t>(channels));
  Put32(s, rate);
  Put32(s, rate * 2 * channels);
  Put16(s, static_cast<uint16_t>(2 * channels));
  Put16(s, 16);
  s += "data";
  Put32(s, static_cast<uint32_t>(data.size()));
  return s + data;
}

std::vector<int16_t> Ramp(int n) {
  std::vector<int16_t> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<int16_t>(i * 37 - 20000));
  return v;
}

TEST(AudioFile, SixteenBitSamplesAreMindSporesValues) {
  const auto ramp = Ramp(100);
  auto got = DecodeAudio(Wav(ramp), "ramp.wav");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->sample_rate, 16000);
  ASSERT_EQ(got->waveform.shape(), (Shape{1, 100}));
  for (int i = 0; i < 100; ++i) {
    // MindSpore's ReadWaveFile: int16 / 32767.0f (so -32768 gives -1.00003).
    EXPECT_EQ(got->waveform.data_as<float>()[i], static_cast<float>(ramp[i]) / 32767.0f) << i;
  }
  auto low = DecodeAudio(Wav({-32768}), "low.wav");
  ASSERT_TRUE(low.ok());
  EXPECT_FLOAT_EQ(low->waveform.data_as<float>()[0], -32768.0f / 32767.0f);
}

TEST(AudioFile, ChannelsAreRows) {
  auto got = DecodeAudio(Wav({1, -1, 2, -2, 3, -3}, 2), "stereo.wav");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->waveform.shape(), (Shape{2, 3}));
  const float* w = got->waveform.data_as<float>();
  for (int f = 0; f < 3; ++f) {
    EXPECT_EQ(w[f], static_cast<float>(f + 1) / 32767.0f);
    EXPECT_EQ(w[3 + f], -static_cast<float>(f + 1) / 32767.0f);
  }
}

TEST(AudioFile, SegmentsAreTruncatedToFramesAndMustFit) {
  const auto ramp = Ramp(1600);
  // 0.07 s at 16 kHz is 1120.0000000000002 frames: truncated to 1120, as
  // MindSpore's (int32_t)(time * rate).
  auto got = DecodeAudio(Wav(ramp), "talk.sph", AudioSpan{0.02, 0.07});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->waveform.shape(), (Shape{1, 1120 - 320}));
  EXPECT_EQ(got->waveform.data_as<float>()[0], static_cast<float>(ramp[320]) / 32767.0f);
  auto past = DecodeAudio(Wav(ramp), "talk.sph", AudioSpan{0.05, 0.2});
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.status().ToString().find("talk.sph: the segment"), std::string::npos) << past.status().ToString();
  EXPECT_NE(past.status().ToString().find("ends at frame 3200, past the file's 1600"), std::string::npos);
}

TEST(AudioFile, OtherContainersAndTruncationAreRefused) {
  // libsndfile reads AIFF; the datasets' files are WAV or SPHERE, so the
  // bytes never reach its AIFF parser.
  std::string aiff = "FORM";
  Put32(aiff, 4);
  aiff += "AIFF";
  auto got = DecodeAudio(aiff, "x.wav");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
  EXPECT_NE(got.status().ToString().find("x.wav: not a WAV or NIST SPHERE file"), std::string::npos);
  const std::string wav = Wav(Ramp(100));
  got = DecodeAudio(wav.substr(0, wav.size() - 10), "cut.wav");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().ToString().find("cut.wav: truncated: the data chunk holds 190 of its 200 bytes"),
            std::string::npos)
      << got.status().ToString();
  // A data size of 0xFFFFFFFF (a recorder that never finished the header)
  // means "to the end of the file".
  std::string streaming = wav;
  const uint32_t unknown = 0xFFFFFFFFu;
  std::memcpy(streaming.data() + 40, &unknown, 4);
  got = DecodeAudio(streaming, "live.wav");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->waveform.shape(), (Shape{1, 100}));
}

class AudioSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("mr_audio_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "wavs");
    std::ofstream(dir_ / "metadata.csv") << "b|second|Second\na|first|First\n";
    std::ofstream(dir_ / "wavs" / "a.wav", std::ios::binary) << Wav(Ramp(10), 1, 22050);
    std::ofstream(dir_ / "wavs" / "b.wav", std::ios::binary) << Wav(Ramp(20), 1, 22050);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AudioSourceTest, LjSpeechPlanReadsMetadataOrder) {
  json leaf = {{"node", "audio"}, {"format", "ljspeech"}, {"dataset_dir", dir_.string()}};
  auto plan = Plan::FromJson({{"tree", leaf}, {"num_workers", 2}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto pipe = Pipeline::Open(*plan);
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  std::vector<std::string> texts;
  std::vector<int64_t> frames;
  for (;;) {
    Batch b;
    auto more = (*pipe)->Next(&b);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    const BatchColumn* t = b.column("transcription");
    const BatchColumn* w = b.column("waveform");
    ASSERT_NE(t, nullptr);
    ASSERT_NE(w, nullptr);
    ASSERT_EQ(b.size(), 1u);  // no batch node: a row a batch
    const Tensor& text = t->is_list() ? t->list[0] : t->data;
    texts.emplace_back(text.data_as<char>(), text.size_bytes());
    frames.push_back(w->is_list() ? w->list[0].shape()[1] : w->data.shape()[2]);
  }
  EXPECT_EQ(texts, (std::vector<std::string>{"second", "first"}));
  EXPECT_EQ(frames, (std::vector<int64_t>{20, 10}));
}

TEST_F(AudioSourceTest, LeafKeysAndValuesAreChecked) {
  auto bad = [&](json leaf, const std::string& want) {
    leaf["node"] = "audio";
    leaf["dataset_dir"] = dir_.string();
    auto n = NormalizeAudioLeaf(leaf, "tree");
    ASSERT_FALSE(n.ok()) << leaf.dump();
    EXPECT_NE(n.status().ToString().find(want), std::string::npos) << n.status().ToString();
  };
  bad({{"format", "ljspeech"}, {"usage", "train"}}, "'usage' does not apply to 'ljspeech'");
  bad({{"format", "gtzan"}, {"usage", "eval"}}, "'usage' \"eval\" is not one of");
  bad({{"format", "tedlium"}}, "'release' must be 'release1', 'release2' or 'release3'");
  bad({{"format", "tedlium"}, {"release", "release3"}, {"usage", "dev"}}, "release3 has one usage, 'all'");
  bad({{"format", "tedlium"}, {"release", "release1"}, {"extensions", ".wav"}}, "'extensions' must be '.sph'");
  bad({{"format", "cmuarctic"}, {"name", "xyz"}}, "'name' \"xyz\" is not one of");
  bad({{"format", "flac"}}, "'format' must be one of yesno");
  bad({{"format", "yesno"}, {"colums", 1}}, "unknown key 'colums'");
}

}  // namespace
}  // namespace mindrecord
