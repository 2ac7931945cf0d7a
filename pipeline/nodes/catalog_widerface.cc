// WIDERFaceDataset's faces (catalog_layouts.h): the .jpg files of
// WIDER_{train,val,test}/images/EVENT/ (usage train, valid, test; all:
// train then valid), events and files sorted by name; for train and valid
// the boxes of wider_face_split/wider_face_{train,val}_bbx_gt.txt: per image
// its path under images/, the box count, then a line per box "x y w h blur
// expression illumination occlusion pose invalid". A count of 0 is followed
// by one line of zeros, which MindSpore reads as a box, and so do we. An
// image the file does not list has no boxes.
#include <filesystem>
#include <map>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr const char* kWiderWho = "WIDERFaceDataset";

// Image path under images/ -> its boxes, 10 values each.
Result<std::map<std::string, std::vector<int32_t>, std::less<>>> ReadBoxes(const std::string& path) {
  MR_ASSIGN_OR_RETURN(std::string text, ReadListFile(path, kWiderWho));
  const auto lines = NumberedLines(text);
  std::map<std::string, std::vector<int32_t>, std::less<>> out;
  const int64_t kMaxBoxes = int64_t{1} << 24;
  for (size_t i = 0; i < lines.size();) {
    const std::string_view name = CatalogChomp(lines[i].second);
    if (WhitespaceTokens(name).empty()) {
      ++i;
      continue;
    }
    const std::string where = path + ":" + std::to_string(lines[i].first);
    if (i + 1 >= lines.size()) return Status::Corruption(std::string(kWiderWho) + ": " + where + ": no box count follows");
    const auto count_tok = WhitespaceTokens(lines[i + 1].second);
    MR_ASSIGN_OR_RETURN(int64_t count, CatalogCount(count_tok.size() == 1 ? count_tok[0] : std::string_view(),
                                                    kMaxBoxes, kWiderWho, path + ":" + std::to_string(lines[i + 1].first)));
    const int64_t boxes = count == 0 ? 1 : count;
    std::vector<int32_t>& v = out[std::string(name)];
    v.clear();
    i += 2;
    for (int64_t b = 0; b < boxes; ++b, ++i) {
      if (i >= lines.size())
        return Status::Corruption(std::string(kWiderWho) + ": " + where + ": the file ends before the image's " +
                                  std::to_string(boxes) + " box lines");
      const auto tok = WhitespaceTokens(lines[i].second);
      const std::string at = path + ":" + std::to_string(lines[i].first);
      if (tok.size() != 10)
        return Status::Corruption(std::string(kWiderWho) + ": " + at + ": " + std::to_string(tok.size()) +
                                  " values, a box line has 10");
      for (const auto& t : tok) {
        MR_ASSIGN_OR_RETURN(int64_t x, CatalogCount(t, INT32_MAX, kWiderWho, at));
        v.push_back(static_cast<int32_t>(x));
      }
    }
  }
  return out;
}

}  // namespace

Result<Catalog> ListWiderFace(const nlohmann::json& args) {
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"usage"}));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  std::vector<std::string> splits;
  if (usage == "train" || usage == "test") splits = {usage};
  else if (usage == "valid") splits = {"val"};
  else if (usage == "all") splits = {"train", "val"};
  else
    return Status::InvalidArgument(std::string(kWiderWho) + ": usage must be 'train', 'valid', 'test' or 'all', got '" +
                                   usage + "'");
  const fs::path dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  c.file_columns = 1;
  const bool test = usage == "test";
  c.columns = test ? std::vector<std::string>{"image"}
                   : std::vector<std::string>{"image",        "bbox",      "blur", "expression",
                                              "illumination", "occlusion", "pose", "invalid"};
  for (const auto& split : splits) {
    const fs::path images = dir / ("WIDER_" + split) / "images";
    std::map<std::string, std::vector<int32_t>, std::less<>> boxes;
    if (!test) {
      MR_ASSIGN_OR_RETURN(boxes, ReadBoxes((dir / "wider_face_split" / ("wider_face_" + split + "_bbx_gt.txt")).string()));
    }
    MR_ASSIGN_OR_RETURN(auto events, SortedFolderEntries(images.string(), true, kWiderWho));
    for (const auto& event : events) {
      MR_ASSIGN_OR_RETURN(auto files, SortedFolderEntries((images / event).string(), false, kWiderWho));
      for (const auto& f : files) {
        if (f.size() <= 4 || f.compare(f.size() - 4, 4, ".jpg") != 0) continue;
        c.paths.push_back((images / event / f).string());
        if (test) continue;
        auto it = boxes.find(event + "/" + f);
        const std::vector<int32_t> none;
        const std::vector<int32_t>& v = it == boxes.end() ? none : it->second;
        const auto m = static_cast<int64_t>(v.size() / 10);
        std::vector<int32_t> bbox;
        std::vector<std::vector<int32_t>> attrs(6);
        for (int64_t b = 0; b < m; ++b) {
          bbox.insert(bbox.end(), v.begin() + b * 10, v.begin() + b * 10 + 4);
          for (int a = 0; a < 6; ++a) attrs[a].push_back(v[b * 10 + 4 + a]);
        }
        c.values.push_back(CatalogInt32s({m, 4}, bbox));
        for (int a = 0; a < 6; ++a) c.values.push_back(CatalogInt32s({m}, attrs[a]));
      }
    }
  }
  return c;
}

}  // namespace mindrecord
