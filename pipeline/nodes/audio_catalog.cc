#include "pipeline/nodes/audio_catalog.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string_view>
#include <tuple>

#include "mindrecord/utf8.h"
#include "writers/convert/image_codec.h"

namespace mindrecord {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// A metadata file's lines ('\n', a trailing '\r' dropped), each with its
// 1-based number; empty lines are left out.
Result<std::vector<std::pair<size_t, std::string>>> MetadataLines(const std::string& path) {
  auto data = convert::ReadWholeFile(path);
  if (!data.ok()) return data.status().WithContext(path);
  std::vector<std::pair<size_t, std::string>> out;
  std::string_view rest(*data);
  for (size_t number = 1; !rest.empty(); ++number) {
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!IsUtf8(line)) return Status::Corruption(path + ": line " + std::to_string(number) + " is not UTF-8 text");
    out.emplace_back(number, std::string(line));
  }
  return out;
}

Status LineError(const std::string& path, size_t line, const std::string& what) {
  return Status::Corruption(path + ": line " + std::to_string(line) + ": " + what);
}

// A name from metadata used as one path component: refused when it would
// name another folder.
bool SafeComponent(std::string_view s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string_view::npos &&
         s.find('\0') == std::string_view::npos;
}

// A listed relative path (SpeechCommands' lists): no absolute path, no '..'.
bool SafeRelative(std::string_view s) {
  if (s.empty() || s.front() == '/' || s.find('\0') != std::string_view::npos) return false;
  for (const auto& part : fs::path(s)) {
    if (part == "..") return false;
  }
  return true;
}

// The decimal digits of `s` as an int32 (all of it digits, at most INT32_MAX).
bool ParseId(std::string_view s, int32_t* out) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// The regular files directly in `dir` whose name ends in `ext`, sorted.
Result<std::vector<std::string>> FilesIn(const fs::path& dir, std::string_view ext) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0 &&
        it->is_regular_file(ec)) {
      out.push_back(name);
    }
  }
  if (ec) return Status::IOError(dir.string() + ": cannot list the folder: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

AudioColumn Col(const char* name, AudioField f, uint32_t index = 0) { return {name, f, index}; }

// YesNo: the .wav files of the folder (sorted by name; MindSpore takes the
// folder's listing order); label = the '_'-separated numbers of the name's
// first 15 characters, as std::stoi reads each.
Status ListYesNo(AudioCatalog& c) {
  c.columns = {Col("waveform", AudioField::kWaveform), Col("sample_rate", AudioField::kSampleRate),
               Col("label", AudioField::kInts)};
  MR_ASSIGN_OR_RETURN(auto files, FilesIn(c.dir, ".wav"));
  for (auto& name : files) {
    AudioItem item;
    std::string_view head = std::string_view(name).substr(0, 15);
    while (!head.empty()) {
      const size_t us = head.find('_');
      std::string_view piece = head.substr(0, us);
      head = us == std::string_view::npos ? std::string_view() : head.substr(us + 1);
      if (piece.empty()) continue;
      size_t digits = 0;
      while (digits < piece.size() && piece[digits] >= '0' && piece[digits] <= '9') ++digits;
      int32_t v = 0;
      if (!ParseId(piece.substr(0, digits), &v)) {
        return Status::Corruption((fs::path(c.dir) / name).string() +
                                  ": the name is not YesNo's '_'-separated labels (e.g. 0_1_0_0_1_0_1_1.wav)");
      }
      item.ints.push_back(v);
    }
    item.file = std::move(name);
    c.items.push_back(std::move(item));
  }
  return Status::OK();
}

// SpeechCommands: LABEL/SPEAKER_nohash_N.wav in the folders other than
// _background_noise_; "test" / "valid" the files testing_list.txt /
// validation_list.txt name, "train" the others; sorted by path.
Status ListSpeechCommands(AudioCatalog& c, const std::string& usage) {
  c.columns = {Col("waveform", AudioField::kWaveform), Col("sample_rate", AudioField::kSampleRate),
               Col("label", AudioField::kString, 0), Col("speaker_id", AudioField::kString, 1),
               Col("utterance_number", AudioField::kInt, 0)};
  auto listed = [&](const char* list, std::set<std::string>* out) -> Status {
    const std::string path = (fs::path(c.dir) / list).string();
    MR_ASSIGN_OR_RETURN(auto lines, MetadataLines(path));
    for (auto& [number, line] : lines) {
      if (!SafeRelative(line)) return LineError(path, number, "'" + line + "' is not a path inside the dataset");
      out->insert(line);
    }
    return Status::OK();
  };
  std::set<std::string> files;
  if (usage == "test" || usage == "valid") {
    MR_RETURN_IF_ERROR(listed(usage == "test" ? "testing_list.txt" : "validation_list.txt", &files));
  } else {
    std::vector<std::string> labels;
    std::error_code ec;
    for (fs::directory_iterator it(c.dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.find("_background_noise_") == std::string::npos && it->is_directory(ec)) labels.push_back(name);
    }
    if (ec) return Status::IOError(c.dir + ": cannot list the folder: " + ec.message());
    for (const auto& label : labels) {
      MR_ASSIGN_OR_RETURN(auto names, FilesIn(fs::path(c.dir) / label, ".wav"));
      for (const auto& n : names) files.insert(label + "/" + n);
    }
    if (usage == "train") {
      std::set<std::string> held_out;
      MR_RETURN_IF_ERROR(listed("testing_list.txt", &held_out));
      MR_RETURN_IF_ERROR(listed("validation_list.txt", &held_out));
      for (const auto& f : held_out) files.erase(f);
    }
  }
  for (const auto& f : files) {
    const fs::path p(f);
    const std::string base = p.filename().string();
    const size_t mark = base.rfind("_nohash_");
    int32_t n = 0;
    if (mark == std::string::npos || base.size() < 4 || base.compare(base.size() - 4, 4, ".wav") != 0 ||
        mark + 8 > base.size() - 4 || !ParseId(std::string_view(base).substr(mark + 8, base.size() - 4 - mark - 8), &n)) {
      return Status::Corruption((fs::path(c.dir) / f).string() +
                                ": the name is not SpeechCommands' SPEAKER_nohash_N.wav");
    }
    AudioItem item;
    item.file = f;
    item.strings = {p.parent_path().filename().string(), base.substr(0, mark)};
    item.ints = {n};
    c.items.push_back(std::move(item));
  }
  return Status::OK();
}

// LJSpeech: metadata.csv's lines ID|transcription|normalized, in order;
// the audio is wavs/ID.wav.
Status ListLjSpeech(AudioCatalog& c) {
  c.columns = {Col("waveform", AudioField::kWaveform), Col("sample_rate", AudioField::kSampleRate),
               Col("transcription", AudioField::kString, 0), Col("normalized_transcription", AudioField::kString, 1)};
  const std::string path = (fs::path(c.dir) / "metadata.csv").string();
  MR_ASSIGN_OR_RETURN(auto lines, MetadataLines(path));
  for (auto& [number, line] : lines) {
    std::vector<std::string_view> fields;
    for (std::string_view rest(line);;) {
      const size_t bar = rest.find('|');
      fields.push_back(rest.substr(0, bar));
      if (bar == std::string_view::npos) break;
      rest = rest.substr(bar + 1);
    }
    if (fields.size() < 3) {
      return LineError(path, number, std::to_string(fields.size()) + " '|'-separated fields, not ID|text|normalized text");
    }
    if (!SafeComponent(fields[0])) return LineError(path, number, "'" + std::string(fields[0]) + "' is not a file id");
    AudioItem item;
    item.file = "wavs/" + std::string(fields[0]) + ".wav";
    item.strings = {std::string(fields[1]), std::string(fields[2])};
    c.items.push_back(std::move(item));
  }
  return Status::OK();
}

// CMUArctic: cmu_us_NAME_arctic/etc/txt.done.data's lines ( ID "text" ), in
// order; the audio is cmu_us_NAME_arctic/wav/ID.wav, utterance_id what
// follows ID's last '_'.
Status ListCmuArctic(AudioCatalog& c, const std::string& name) {
  c.columns = {Col("waveform", AudioField::kWaveform), Col("sample_rate", AudioField::kSampleRate),
               Col("transcript", AudioField::kString, 0), Col("utterance_id", AudioField::kString, 1)};
  c.fixed_rate = 16000;
  const std::string speaker = "cmu_us_" + name + "_arctic";
  const std::string path = (fs::path(c.dir) / speaker / "etc" / "txt.done.data").string();
  MR_ASSIGN_OR_RETURN(auto lines, MetadataLines(path));
  for (auto& [number, line] : lines) {
    const size_t q0 = line.find('"');
    const size_t q1 = q0 == std::string::npos ? q0 : line.find('"', q0 + 1);
    size_t b = line.find('(');
    if (q1 == std::string::npos || b == std::string::npos || b > q0) {
      return LineError(path, number, "not a CMUArctic prompt line: ( ID \"text\" )");
    }
    b = line.find_first_not_of(" \t", b + 1);
    const size_t e = line.find_first_of(" \t\"", b);
    const std::string id = line.substr(b, e - b);
    const size_t us = id.rfind('_');
    if (!SafeComponent(id) || us == std::string::npos || us + 1 == id.size()) {
      return LineError(path, number, "'" + id + "' is not an utterance id (e.g. arctic_a0001)");
    }
    AudioItem item;
    item.file = speaker + "/wav/" + id + ".wav";
    item.strings = {line.substr(q0 + 1, q1 - q0 - 1), id.substr(us + 1)};
    c.items.push_back(std::move(item));
  }
  return Status::OK();
}

constexpr std::array<const char*, 10> kGenres = {"blues",  "classical", "country", "disco",  "hiphop",
                                                 "jazz",   "metal",     "pop",     "reggae", "rock"};

// GTZAN's filtered splits (Kereliuk et al., as torchaudio and MindSpore use
// them): per genre, in kGenres order, the track numbers as ranges.
const std::array<const char*, 10>& GtzanSplit(const std::string& usage) {
  static const std::array<const char*, 10> kTest = {
      "12-28,61-72,98-99", "11-29,34-41,49,77-79", "30-40,43-44,46-48,50-51,53-64",
      "1,21,58,62-66,69,76-88,91-94,96-97,99", "0,26-27,30,40,43-45,51-54,62-75,99", "73-99",
      "12-15,22-23,25-33,38-39,67,70,73-75,78,83,85,87-88", "0-1,13-14,43,63-66,69-79,82,88-96",
      "34-40,46-48,52-53,64-68,71,79,82-84,87-90", "10-15,27-37,39-48,86-90"};
  static const std::array<const char*, 10> kTrain = {
      "29-49,73-97", "30-33,43-48,50-67,80-99", "19-26,28-29,65-99",
      "5,15-20,22-37,39-45,47,49,53-54,56-57,59,61,70,73-74,89", "2-25,28-29,31-38,41-42,55-61,77-80",
      "0-1,11-24,41,47-72", "2-3,5,21,24,35,46-57,59-66,69,71-72,79-80,84,86,89-99",
      "2-9,11-12,16-20,23-29,31-36,38-42,44,46,49-50,80,97-99",
      "0-2,4,6,9,11-12,14-32,42-45,49-51,54-60,63,69", "0-9,16-26,57-70,91-99"};
  static const std::array<const char*, 10> kValid = {
      "0-11,50-60", "0-10,68-76", "0-7,9-18,27,41-42,45,49", "0,2-4,6-14,46,48,52,67-68,72,75,90,95", "81-98",
      "2-10,25-32", "0-1,6-11,16-20,36-37,68,76-77,81-82", "10,53,55,58-62,81,83-86",
      "61-62,70,72,74,76-78,85,92-99", "38,49-56,71-85"};
  return usage == "train" ? kTrain : usage == "valid" ? kValid : kTest;
}

// GTZAN: GENRE/GENRE.NNNNN.wav. "all": every such file of the ten genre
// folders (genre order, then by name; MindSpore takes the folder's listing
// order); a split: its tracks, in order, those present.
Status ListGtzan(AudioCatalog& c, const std::string& usage) {
  c.columns = {Col("waveform", AudioField::kWaveform), Col("sample_rate", AudioField::kSampleRate),
               Col("label", AudioField::kString, 0)};
  c.fixed_rate = 22050;
  for (size_t g = 0; g < kGenres.size(); ++g) {
    const std::string genre = kGenres[g];
    std::error_code ec;
    if (usage == "all") {
      if (!fs::is_directory(fs::path(c.dir) / genre, ec)) continue;
      MR_ASSIGN_OR_RETURN(auto names, FilesIn(fs::path(c.dir) / genre, ".wav"));
      for (auto& n : names) {
        if (n.substr(0, n.size() - 4).find('.') == std::string::npos) continue;
        c.items.push_back(AudioItem{genre + "/" + n, 0, -1, {genre}, {}});
      }
      continue;
    }
    std::string_view ranges = GtzanSplit(usage)[g];
    while (!ranges.empty()) {
      const size_t comma = ranges.find(',');
      const std::string_view r = ranges.substr(0, comma);
      ranges = comma == std::string_view::npos ? std::string_view() : ranges.substr(comma + 1);
      const size_t dash = r.find('-');
      int32_t lo = 0, hi = 0;
      ParseId(r.substr(0, dash), &lo);
      hi = lo;
      if (dash != std::string_view::npos) ParseId(r.substr(dash + 1), &hi);
      for (int32_t n = lo; n <= hi; ++n) {
        char file[64];
        std::snprintf(file, sizeof(file), "%s/%s.%05d.wav", genre.c_str(), genre.c_str(), n);
        if (fs::is_regular_file(fs::path(c.dir) / file, ec)) c.items.push_back(AudioItem{file, 0, -1, {genre}, {}});
      }
    }
  }
  return Status::OK();
}

// LibriTTS: the subsets' SPEAKER/CHAPTER/*.trans.tsv files (sorted by path;
// MindSpore takes the folders' listing order), each line
// UTTERANCE_ID<TAB>original<TAB>normalized in order; the audio is
// SUBSET/SPEAKER/CHAPTER/UTTERANCE_ID.wav.
Status ListLibriTts(AudioCatalog& c, const std::string& usage) {
  c.columns = {Col("waveform", AudioField::kWaveform),      Col("sample_rate", AudioField::kSampleRate),
               Col("original_text", AudioField::kString, 0), Col("normalized_text", AudioField::kString, 1),
               Col("speaker_id", AudioField::kInt, 0),       Col("chapter_id", AudioField::kInt, 1),
               Col("utterance_id", AudioField::kString, 2)};
  c.fixed_rate = 24000;
  static const std::array<const char*, 7> kSubsets = {"dev-clean",       "dev-other",       "test-clean", "test-other",
                                                      "train-clean-100", "train-clean-360", "train-other-500"};
  for (const char* subset : kSubsets) {
    if (usage != "all" && usage != subset) continue;
    const fs::path root = fs::path(c.dir) / subset;
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    std::vector<std::string> tsvs;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() > 10 && name.compare(name.size() - 10, 10, ".trans.tsv") == 0 && it->is_regular_file(ec)) {
        tsvs.push_back(it->path().string());
      }
    }
    if (ec) return Status::IOError(root.string() + ": cannot list the folder: " + ec.message());
    std::sort(tsvs.begin(), tsvs.end());
    for (const auto& tsv : tsvs) {
      MR_ASSIGN_OR_RETURN(auto lines, MetadataLines(tsv));
      for (auto& [number, line] : lines) {
        const size_t t0 = line.find('\t');
        const size_t t1 = t0 == std::string::npos ? t0 : line.find('\t', t0 + 1);
        if (t1 == std::string::npos) return LineError(tsv, number, "not UTTERANCE_ID<TAB>original<TAB>normalized");
        const std::string id = line.substr(0, t0);
        const size_t u0 = id.find('_');
        const size_t u1 = u0 == std::string::npos ? u0 : id.find('_', u0 + 1);
        int32_t speaker = 0, chapter = 0;
        if (std::count(id.begin(), id.end(), '_') != 3 || !SafeComponent(id) ||
            !ParseId(std::string_view(id).substr(0, u0), &speaker) ||
            !ParseId(std::string_view(id).substr(u0 + 1, u1 - u0 - 1), &chapter)) {
          return LineError(tsv, number, "'" + id + "' is not a LibriTTS utterance id (SPEAKER_CHAPTER_N_M)");
        }
        AudioItem item;
        item.file = std::string(subset) + "/" + std::to_string(speaker) + "/" + std::to_string(chapter) + "/" + id +
                    ".wav";
        item.strings = {line.substr(t0 + 1, t1 - t0 - 1), line.substr(t1 + 1), id};
        item.ints = {speaker, chapter};
        c.items.push_back(std::move(item));
      }
    }
  }
  return Status::OK();
}

// TED-LIUM: USAGE/stm/*.stm (release3: data/stm), one row per segment line
// "TALK CHANNEL SPEAKER START END IDENTIFIER TRANSCRIPT" (';;' comments
// left out), the audio USAGE/sph/TALK.sph from START to END seconds.
// MindSpore's order: sorted by (the line's index as a decimal string, TALK,
// USAGE).
Status ListTedlium(AudioCatalog& c, const std::string& release, const std::string& usage) {
  c.columns = {Col("waveform", AudioField::kWaveform),   Col("sample_rate", AudioField::kSampleRate),
               Col("transcript", AudioField::kString, 0), Col("talk_id", AudioField::kString, 1),
               Col("speaker_id", AudioField::kString, 2), Col("identifier", AudioField::kString, 3)};
  std::vector<std::string> usages;
  if (release == "release3") usages = {"data"};
  else if (usage == "all") usages = {"train", "test", "dev"};
  else usages = {usage};
  std::vector<std::tuple<std::string, std::string, std::string, AudioItem>> rows;
  for (const auto& u : usages) {
    const fs::path stm_dir = fs::path(c.dir) / u / "stm";
    std::error_code ec;
    if (!fs::is_directory(stm_dir, ec)) return Status::NotFound(stm_dir.string() + ": no such folder");
    MR_ASSIGN_OR_RETURN(auto stms, FilesIn(stm_dir, ".stm"));
    for (const auto& stm : stms) {
      const std::string path = (stm_dir / stm).string();
      MR_ASSIGN_OR_RETURN(auto lines, MetadataLines(path));
      for (auto& [number, line] : lines) {
        if (line.compare(0, 2, ";;") == 0) continue;
        std::vector<std::string> f;
        size_t at = 0;
        for (int k = 0; k < 6 && at != std::string::npos; ++k) {
          const size_t sp = line.find(' ', at);
          f.push_back(line.substr(at, sp == std::string::npos ? std::string::npos : sp - at));
          at = sp == std::string::npos ? sp : sp + 1;
        }
        if (at == std::string::npos) {
          return LineError(path, number, "not an STM segment (TALK CHANNEL SPEAKER START END LABEL TRANSCRIPT)");
        }
        char* end0 = nullptr;
        char* end1 = nullptr;
        const double start = std::strtod(f[3].c_str(), &end0);
        const double stop = std::strtod(f[4].c_str(), &end1);
        if (f[3].empty() || f[4].empty() || *end0 != '\0' || *end1 != '\0' || !std::isfinite(start) ||
            !std::isfinite(stop) || start < 0 || stop < start) {
          return LineError(path, number, "times '" + f[3] + "' to '" + f[4] + "' are not a segment in seconds");
        }
        if (!SafeComponent(f[0])) return LineError(path, number, "'" + f[0] + "' is not a talk id");
        AudioItem item;
        item.file = u + "/sph/" + f[0] + ".sph";
        item.start_s = start;
        item.end_s = stop;
        item.strings = {line.substr(at), f[0], f[2], f[5]};
        rows.emplace_back(std::to_string(number - 1), f[0], u, std::move(item));
      }
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  for (auto& r : rows) c.items.push_back(std::move(std::get<3>(r)));
  return Status::OK();
}

}  // namespace

Result<AudioCatalog> ListAudioDataset(const json& node) {
  AudioCatalog c;
  const std::string format = node.at("format").get<std::string>();
  c.dir = node.at("dataset_dir").get<std::string>();
  const std::string usage = node.value("usage", std::string("all"));
  std::error_code ec;
  if (!fs::is_directory(c.dir, ec)) return Status::NotFound(c.dir + ": dataset_dir is not a folder");
  Status st;
  if (format == "yesno") {
    c.dataset = "YesNoDataset";
    st = ListYesNo(c);
  } else if (format == "speechcommands") {
    c.dataset = "SpeechCommandsDataset";
    st = ListSpeechCommands(c, usage);
  } else if (format == "ljspeech") {
    c.dataset = "LJSpeechDataset";
    st = ListLjSpeech(c);
  } else if (format == "cmuarctic") {
    c.dataset = "CMUArcticDataset";
    st = ListCmuArctic(c, node.value("name", std::string("aew")));
  } else if (format == "gtzan") {
    c.dataset = "GTZANDataset";
    st = ListGtzan(c, usage);
  } else if (format == "libritts") {
    c.dataset = "LibriTTSDataset";
    st = ListLibriTts(c, usage);
  } else if (format == "tedlium") {
    c.dataset = "TedliumDataset";
    st = ListTedlium(c, node.at("release").get<std::string>(), usage);
  } else {
    return Status::InvalidArgument("unknown audio dataset format '" + format + "'");
  }
  MR_RETURN_IF_ERROR(st);
  if (c.items.empty()) {
    return Status::NotFound(c.dir + ": no " + c.dataset + " rows" + (usage == "all" ? "" : " for usage '" + usage + "'"));
  }
  return c;
}

}  // namespace mindrecord
