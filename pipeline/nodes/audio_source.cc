#include "pipeline/nodes/audio_source.h"

#include <filesystem>
#include <map>
#include <set>

#include "pipeline/nodes/audio_catalog.h"
#include "pipeline/nodes/audio_file.h"
#include "pipeline/nodes/tree_spec.h"
#include "pipeline/row_vectors.h"

namespace mindrecord {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

class AudioSource : public Source {
 public:
  explicit AudioSource(AudioCatalog c) : c_(std::move(c)) {
    for (const auto& col : c_.columns) names_.push_back(col.name);
  }

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return c_.items.size(); }
  DatasetLayout Layout() const override { return DatasetLayout::Uniform(c_.items.size(), 1); }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= c_.items.size()) {
        return Status::InvalidArgument("row " + std::to_string(ids[k]) + " of " + std::to_string(c_.items.size()));
      }
      const AudioItem& item = c_.items[ids[k]];
      std::vector<Tensor> cols = TakeRowVector();  // given back by the batch it goes into
      uint64_t bytes = 0;
      Status st = ReadRow(item, &cols, &bytes);
      if (!st.ok()) {
        MR_RETURN_IF_ERROR(fn(k, st, {}, 0));
        continue;
      }
      MR_RETURN_IF_ERROR(fn(k, Status::OK(), std::move(cols), bytes));
    }
    return Status::OK();
  }

  std::string Where(uint64_t id) const override {
    std::string where = "row " + std::to_string(id);
    if (id < c_.items.size()) where += " ('" + Path(c_.items[id]) + "')";
    return where;
  }

 private:
  std::string Path(const AudioItem& item) const { return (fs::path(c_.dir) / item.file).string(); }

  Status ReadRow(const AudioItem& item, std::vector<Tensor>* cols, uint64_t* bytes) const {
    const std::string path = Path(item);
    MR_ASSIGN_OR_RETURN(DecodedAudio audio, ReadAudioFile(path, AudioSpan{item.start_s, item.end_s}));
    if (c_.fixed_rate > 0 && audio.sample_rate != c_.fixed_rate) {
      return Status::Corruption(path + ": " + std::to_string(audio.sample_rate) + " Hz; " + c_.dataset +
                                " files are " + std::to_string(c_.fixed_rate) + " Hz");
    }
    for (const auto& col : c_.columns) {
      switch (col.field) {
        case AudioField::kWaveform:
          *bytes += audio.waveform.size_bytes();
          cols->push_back(audio.waveform);
          break;
        case AudioField::kSampleRate:
          cols->push_back(Int32(audio.sample_rate));
          break;
        case AudioField::kString:
          *bytes += item.strings[col.index].size();
          cols->push_back(Tensor::FromString(TensorType::kString, item.strings[col.index]));
          break;
        case AudioField::kInt:
          cols->push_back(Int32(item.ints[col.index]));
          break;
        case AudioField::kInts: {
          Tensor t = Tensor::Make(TensorType::kInt32, {static_cast<int64_t>(item.ints.size())});
          std::copy(item.ints.begin(), item.ints.end(), t.mutable_data_as<int32_t>());
          cols->push_back(std::move(t));
          break;
        }
      }
    }
    return Status::OK();
  }

  static Tensor Int32(int32_t v) {
    Tensor t = Tensor::Make(TensorType::kInt32, {});
    *t.mutable_data_as<int32_t>() = v;
    return t;
  }

  AudioCatalog c_;
  std::vector<std::string> names_;
};

const std::map<std::string, std::set<std::string>>& Usages() {
  static const std::map<std::string, std::set<std::string>> k = {
      {"speechcommands", {"train", "valid", "test", "all"}},
      {"gtzan", {"train", "valid", "test", "all"}},
      {"libritts",
       {"dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360", "train-other-500",
        "all"}},
      {"tedlium", {"train", "test", "dev", "all"}},
      {"yesno", {}},
      {"ljspeech", {}},
      {"cmuarctic", {}}};
  return k;
}

}  // namespace

Result<std::unique_ptr<Source>> OpenAudioSource(const json& node) {
  MR_ASSIGN_OR_RETURN(AudioCatalog c, ListAudioDataset(node));
  return std::unique_ptr<Source>(new AudioSource(std::move(c)));
}

Result<json> NormalizeAudioLeaf(const json& j, const std::string& path) {
  static const std::set<std::string> kKeys = {"node",    "format",     "dataset_dir", "usage", "name",
                                              "release", "extensions", "sampler",     "seed"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!kKeys.count(it.key())) return PlanNodeError(path, "unknown key '" + it.key() + "' for an 'audio' node");
  }
  const json format = j.value("format", json());
  if (!format.is_string() || !Usages().count(format.get<std::string>())) {
    return PlanNodeError(path, "'format' must be one of yesno, speechcommands, ljspeech, cmuarctic, gtzan, libritts, "
                               "tedlium, got " + format.dump());
  }
  const std::string f = format.get<std::string>();
  if (!j.contains("dataset_dir") || !j["dataset_dir"].is_string() || j["dataset_dir"].get<std::string>().empty()) {
    return PlanNodeError(path, "needs 'dataset_dir', a folder path");
  }
  json out = {{"node", "audio"}, {"format", f}, {"dataset_dir", j["dataset_dir"]}};
  auto only = [&](const char* key, const char* fmt) -> Status {
    if (j.contains(key) && f != fmt) return PlanNodeError(path, "'" + std::string(key) + "' does not apply to '" + f + "'");
    return Status::OK();
  };
  MR_RETURN_IF_ERROR(only("name", "cmuarctic"));
  MR_RETURN_IF_ERROR(only("release", "tedlium"));
  MR_RETURN_IF_ERROR(only("extensions", "tedlium"));
  const auto& usages = Usages().at(f);
  if (j.contains("usage") && usages.empty()) return PlanNodeError(path, "'usage' does not apply to '" + f + "'");
  if (!usages.empty()) {
    const json u = j.value("usage", json("all"));
    if (!u.is_string() || !usages.count(u.get<std::string>())) {
      return PlanNodeError(path, "'usage' " + u.dump() + " is not one of " + json(usages).dump() + " for '" + f + "'");
    }
    out["usage"] = u;
  }
  if (f == "cmuarctic") {
    static const std::set<std::string> kNames = {"aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem",
                                                 "gka", "jmk", "ksp", "ljm", "lnh", "rms", "rxr", "slp", "slt"};
    const json n = j.value("name", json("aew"));
    if (!n.is_string() || !kNames.count(n.get<std::string>())) {
      return PlanNodeError(path, "'name' " + n.dump() + " is not one of " + json(kNames).dump());
    }
    out["name"] = n;
  }
  if (f == "tedlium") {
    const json r = j.value("release", json());
    if (r != "release1" && r != "release2" && r != "release3") {
      return PlanNodeError(path, "'release' must be 'release1', 'release2' or 'release3', got " + r.dump());
    }
    out["release"] = r;
    if (r == "release3" && out["usage"] != "all") {
      return PlanNodeError(path, "release3 has one usage, 'all'; got " + out["usage"].dump());
    }
    const json e = j.value("extensions", json(".sph"));
    if (e != ".sph") return PlanNodeError(path, "'extensions' must be '.sph' (the only one read), got " + e.dump());
    out["extensions"] = e;
  }
  MR_ASSIGN_OR_RETURN(out["sampler"], LeafSampler(j, path));
  MR_RETURN_IF_ERROR(CopyLeafSeed(j, &out, path));
  return out;
}

}  // namespace mindrecord
