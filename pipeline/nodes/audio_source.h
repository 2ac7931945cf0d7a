// AudioSource: MindSpore's audio datasets (YesNoDataset,
// SpeechCommandsDataset, LJSpeechDataset, CMUArcticDataset, GTZANDataset,
// LibriTTSDataset, TedliumDataset) as a leaf's Source, with MindSpore's
// columns and row order. The folder is listed at Open (audio_catalog.h);
// each row decodes its sound file when read (audio_file.h): "waveform"
// float32 [channels, frames], "sample_rate" int32, then the dataset's
// string and int32 columns.
//
// The plan node ("audio"):
//   format       "yesno" | "speechcommands" | "ljspeech" | "cmuarctic" |
//                "gtzan" | "libritts" | "tedlium"
//   dataset_dir  the folder
//   usage        speechcommands: "train" | "valid" | "test" | "all";
//                gtzan: "train" | "valid" | "test" | "all";
//                libritts: a subset ("dev-clean", ... "train-other-500") or "all";
//                tedlium release1/2: "train" | "test" | "dev" | "all", release3: "all"
//   name         cmuarctic: the speaker ("aew", ... "slt"; default "aew")
//   release      tedlium: "release1" | "release2" | "release3"
//   extensions   tedlium: ".sph" (the only one read)
// Column dtypes: MindSpore's uint32 columns (CMUArctic, GTZAN, LibriTTS
// sample_rate; LibriTTS speaker_id, chapter_id) are int32 here (the
// pipeline has no uint32 tensor); values are the same.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/source.h"

namespace mindrecord {

// Thread safety: as Source (rows are decoded by the calling thread).
Result<std::unique_ptr<Source>> OpenAudioSource(const nlohmann::json& node);

// Checks an "audio" leaf's keys and values and fills in the defaults, naming
// what is wrong ("plan: PATH: ...").
Result<nlohmann::json> NormalizeAudioLeaf(const nlohmann::json& j, const std::string& path);

}  // namespace mindrecord
