// The rows of MindSpore's audio datasets, listed from their folders the way
// MindSpore's loaders list them (audio_source.h reads them): YesNo,
// SpeechCommands, LJSpeech, CMUArctic, GTZAN, LibriTTS and TED-LIUM. Each
// row names a sound file under the dataset folder (a TED-LIUM row a segment
// of one, in seconds) and holds its other columns' values, parsed from file
// names and metadata files at open. The folder is untrusted: a metadata line
// that does not parse is a Corruption error naming the file and line, and a
// name that would leave the folder ('/' in an id, '..' in a listed path) is
// refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/status.h"

namespace mindrecord {

// Where a column's value comes from.
enum class AudioField : uint8_t {
  kWaveform,    // float32 [channels, frames], decoded
  kSampleRate,  // int32 scalar: the file's rate
  kString,      // AudioItem::strings[index]
  kInt,         // int32 scalar: AudioItem::ints[index]
  kInts,        // int32 [n]: all of AudioItem::ints
};

struct AudioColumn {
  std::string name;
  AudioField field;
  uint32_t index = 0;
};

struct AudioItem {
  std::string file;  // relative to AudioCatalog::dir
  double start_s = 0;  // a segment [start_s, end_s) of the file; end_s < 0: the whole file
  double end_s = -1;
  std::vector<std::string> strings;
  std::vector<int32_t> ints;
};

struct AudioCatalog {
  std::string dataset;  // MindSpore's class name, for errors
  std::string dir;
  std::vector<AudioColumn> columns;
  int32_t fixed_rate = 0;  // > 0: every file must have this rate (CMUArctic, GTZAN, LibriTTS)
  std::vector<AudioItem> items;
};

// The rows of a normalized "audio" node (audio_source.h); NotFound when the
// folder holds none.
Result<AudioCatalog> ListAudioDataset(const nlohmann::json& node);

}  // namespace mindrecord
