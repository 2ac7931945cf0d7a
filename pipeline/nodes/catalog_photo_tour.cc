// PhotoTourDataset's patches (catalog_layouts.h): the .bmp files of
// dataset_dir/NAME/ sorted by name, each a 1024 x 1024 grey grid of 16 x 16
// patches of 64 x 64 (patch i: bitmap i / 256, row i % 256 / 16, column
// i % 16). usage train: a row per info.txt record ("point_id unused"),
// [image (uint8 [64, 64, 1])]; test: a row per m50_100000_100000_0.txt
// record ("patch1 point1 unused patch2 point2 unused unused"), [image1,
// image2, matches (int32: 1 when the points are the same; MindSpore's
// uint32)]. Both files are read whole and taken as whitespace-separated
// fields in groups, as MindSpore's. A patch is cut from its bitmap when its
// row is read; the last 32 bitmaps decoded are kept (1 MiB each).
#include <cstring>
#include <filesystem>
#include <list>
#include <mutex>

#include <opencv2/imgproc.hpp>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"
#include "writers/convert/image_codec.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTourWho = "PhotoTourDataset";

// Decoded bitmaps, the most recently used kept.
class Bitmaps {
 public:
  explicit Bitmaps(std::vector<std::string> paths) : paths_(std::move(paths)) {}
  uint64_t patches() const { return paths_.size() * 256; }

  Result<Tensor> Patch(uint64_t i) {
    MR_ASSIGN_OR_RETURN(auto grey, Bitmap(static_cast<size_t>(i / 256)));
    const uint64_t row = i % 256 / 16, col = i % 16;
    Tensor t = Tensor::Make(TensorType::kUInt8, {64, 64, 1});
    uint8_t* out = t.MutableData();
    for (uint64_t y = 0; y < 64; ++y)
      std::memcpy(out + y * 64, grey->data() + (row * 64 + y) * 1024 + col * 64, 64);
    return t;
  }

 private:
  Result<std::shared_ptr<const std::string>> Bitmap(size_t k) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = kept_.begin(); it != kept_.end(); ++it)
        if (it->first == k) {
          kept_.splice(kept_.begin(), kept_, it);
          return it->second;
        }
    }
    MR_ASSIGN_OR_RETURN(std::string bytes, ReadRowFile(paths_[k]));
    int h = 0, w = 0;
    Result<std::string> rgb = convert::DecodeImageFileToRgb(bytes, &h, &w);
    if (!rgb.ok()) return Status(rgb.status().code(), paths_[k] + ": " + rgb.status().message());
    if (h != 1024 || w != 1024)
      return Status::Corruption(paths_[k] + ": " + std::to_string(w) + " x " + std::to_string(h) +
                                ", a PhotoTour bitmap is 1024 x 1024");
    auto grey = std::make_shared<std::string>(size_t{1024} * 1024, '\0');
    cv::Mat in(1024, 1024, CV_8UC3, rgb->data()), out(1024, 1024, CV_8UC1, grey->data());
    cv::cvtColor(in, out, cv::COLOR_RGB2GRAY);
    std::lock_guard<std::mutex> lock(mu_);
    kept_.emplace_front(k, grey);
    if (kept_.size() > 32) kept_.pop_back();
    return std::shared_ptr<const std::string>(grey);
  }

  std::vector<std::string> paths_;
  std::mutex mu_;
  std::list<std::pair<size_t, std::shared_ptr<const std::string>>> kept_;
};

// The fields of a PhotoTour text file, all whitespace alike, as numbers.
Result<std::vector<int64_t>> TourFields(const std::string& path, size_t group) {
  MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(path, kTourWho));
  const auto tok = WhitespaceTokens(text);
  if (tok.empty() || tok.size() % group != 0)
    return Status::Corruption(std::string(kTourWho) + ": " + path + ": " + std::to_string(tok.size()) +
                              " fields, not records of " + std::to_string(group));
  std::vector<int64_t> out;
  for (size_t i = 0; i < tok.size(); ++i) {
    MR_ASSIGN_OR_RETURN(int64_t v, CatalogCount(tok[i], INT32_MAX, kTourWho,
                                                path + " (record " + std::to_string(i / group + 1) + ")"));
    out.push_back(v);
  }
  return out;
}

}  // namespace

Result<Catalog> ListPhotoTour(const nlohmann::json& args) {
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"name", "usage"}));
  MR_ASSIGN_OR_RETURN(std::string name, CatalogStringArg(args, "name", ""));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "train"));
  const std::vector<std::string> names = {"notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris",
                                          "liberty_harris"};
  if (std::find(names.begin(), names.end(), name) == names.end())
    return Status::InvalidArgument(std::string(kTourWho) + ": '" + name + "' is not a PhotoTour set");
  if (usage != "train" && usage != "test")
    return Status::InvalidArgument(std::string(kTourWho) + ": usage must be 'train' or 'test', got '" + usage + "'");
  const fs::path dir = fs::path(args["dataset_dir"].get<std::string>()) / name;
  MR_ASSIGN_OR_RETURN(auto files, SortedFolderEntries(dir.string(), false, kTourWho));
  std::vector<std::string> bmps;
  for (const auto& f : files)
    if (f.size() >= 3 && f.compare(f.size() - 3, 3, "bmp") == 0) bmps.push_back((dir / f).string());
  auto bitmaps = std::make_shared<Bitmaps>(bmps);
  MR_ASSIGN_OR_RETURN(auto info, TourFields((dir / "info.txt").string(), 2));
  const std::string matches_path = (dir / "m50_100000_100000_0.txt").string();
  MR_ASSIGN_OR_RETURN(auto matches, TourFields(matches_path, 7));
  const uint64_t n_info = info.size() / 2;
  if (n_info > bitmaps->patches())
    return Status::Corruption(std::string(kTourWho) + ": info.txt lists " + std::to_string(n_info) +
                              " patches, the " + std::to_string(bmps.size()) + " bitmaps of " + dir.string() +
                              " hold " + std::to_string(bitmaps->patches()));
  Catalog c;
  if (usage == "train") {
    c.columns = {"image"};
    c.generated.push_back([bitmaps](uint64_t row) { return bitmaps->Patch(row); });
    c.generated_rows = n_info;
    return c;
  }
  auto pairs = std::make_shared<std::vector<std::pair<uint64_t, uint64_t>>>();
  for (size_t r = 0; r + 7 <= matches.size(); r += 7) {
    for (size_t k : {r, r + 3})
      if (static_cast<uint64_t>(matches[k]) >= n_info)
        return Status::Corruption(std::string(kTourWho) + ": " + matches_path + " (record " +
                                  std::to_string(r / 7 + 1) + "): patch " + std::to_string(matches[k]) +
                                  " is not one of info.txt's " + std::to_string(n_info));
    pairs->emplace_back(matches[r], matches[r + 3]);
    c.values.push_back(CatalogInt32(matches[r + 1] == matches[r + 4] ? 1 : 0));
  }
  c.columns = {"image1", "image2", "matches"};
  c.generated.push_back([bitmaps, pairs](uint64_t row) { return bitmaps->Patch((*pairs)[row].first); });
  c.generated.push_back([bitmaps, pairs](uint64_t row) { return bitmaps->Patch((*pairs)[row].second); });
  return c;
}

}  // namespace mindrecord
