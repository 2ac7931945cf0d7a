// Audio datasets (audio_catalog.h, audio_file.h): the first input byte picks
// the dataset layout and usage, the rest is a sound file, the file
// separator, then the dataset's metadata file (LJSpeech's metadata.csv,
// CMUArctic's txt.done.data, SpeechCommands' lists, LibriTTS' .trans.tsv,
// TED-LIUM's .stm). The sound file is decoded alone (whole and a segment),
// then the folder is listed and its first rows read.
#include "pipeline/nodes/audio_file.h"
#include "pipeline/nodes/audio_source.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/fuzz_target.h"

using namespace mindrecord;

MINDRECORD_FUZZ_TARGET(audio) {
  if (size == 0) return 0;
  const uint8_t pick = data[0];
  auto parts = fuzz::SplitFiles(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), 2);
  const std::string_view sound = parts[0], meta = parts[1];
  (void)DecodeAudio(sound, "sound");
  (void)DecodeAudio(sound, "sound", AudioSpan{0.01, 0.02});

  const auto dir = fuzz::FreshScratch();
  nlohmann::json node = {{"node", "audio"}, {"dataset_dir", dir.string()}};
  switch (pick % 7) {
    case 0:
      node["format"] = "yesno";
      fuzz::WriteFile(dir / "0_1_0_0_1_0_1_1.wav", sound);
      break;
    case 1:
      node["format"] = "speechcommands";
      node["usage"] = (pick & 8) ? "train" : "test";
      fuzz::WriteFile(dir / "a" / "x_nohash_1.wav", sound);
      fuzz::WriteFile(dir / "testing_list.txt", meta);
      fuzz::WriteFile(dir / "validation_list.txt", meta);
      break;
    case 2:
      node["format"] = "ljspeech";
      fuzz::WriteFile(dir / "wavs" / "a.wav", sound);
      fuzz::WriteFile(dir / "metadata.csv", meta);
      break;
    case 3:
      node["format"] = "cmuarctic";
      fuzz::WriteFile(dir / "cmu_us_aew_arctic" / "wav" / "arctic_a0001.wav", sound);
      fuzz::WriteFile(dir / "cmu_us_aew_arctic" / "etc" / "txt.done.data", meta);
      break;
    case 4:
      node["format"] = "gtzan";
      node["usage"] = (pick & 8) ? "valid" : "all";
      fuzz::WriteFile(dir / "blues" / "blues.00000.wav", sound);
      break;
    case 5:
      node["format"] = "libritts";
      fuzz::WriteFile(dir / "dev-clean" / "1" / "2" / "1_2_3_4.wav", sound);
      fuzz::WriteFile(dir / "dev-clean" / "1" / "2" / "1_2.trans.tsv", meta);
      break;
    default:
      node["format"] = "tedlium";
      node["release"] = "release3";
      fuzz::WriteFile(dir / "data" / "sph" / "t.sph", sound);
      fuzz::WriteFile(dir / "data" / "stm" / "t.stm", meta);
      break;
  }
  auto leaf = NormalizeAudioLeaf(node, "tree");
  if (!leaf.ok()) return 0;
  auto src = OpenAudioSource(*leaf);
  if (!src.ok()) return 0;
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < (*src)->num_rows() && i < 16; ++i) ids.push_back(i);
  (void)(*src)->Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  return 0;
}
