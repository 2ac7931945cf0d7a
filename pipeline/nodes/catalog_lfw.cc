// LFWDataset's lists (catalog_layouts.h): lfw-names.txt ("name count" per
// line; a person's label is the 0-based line), and the task's list:
//   people: "N" then N lines "name count" (the person's images
//           name_0001.jpg .. name_COUNT.jpg); 10fold: "FOLDS", then per fold
//           "N" and N such lines;
//   pairs:  "P" then P lines "name i j" (same person, label 1) and P lines
//           "name1 i name2 j" (label 0); 10fold: "FOLDS P", then per fold
//           P of each.
// usage 10fold reads TASK.txt, train TASKDevTrain.txt, test TASKDevTest.txt,
// all DevTrain then DevTest; the images lie in lfw/, lfw_funneled/ or
// lfw-deepfunneled/ (image_set original, funneled, deepfunneled) as
// NAME/NAME_NNNN.jpg.
#include <cstdio>
#include <filesystem>
#include <map>

#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"

namespace mindrecord {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLfwWho = "LFWDataset";
constexpr int64_t kMaxImageNumber = 99999999;

struct LfwLines {
  std::string path;
  std::vector<std::pair<size_t, std::vector<std::string_view>>> lines;  // non-blank, tokenised
  size_t next = 0;

  std::string Where(size_t i) const { return path + ":" + std::to_string(lines[i].first); }
  Result<const std::vector<std::string_view>*> Take(size_t want_min, size_t want_max, const char* what) {
    if (next >= lines.size()) return Status::Corruption(std::string(kLfwWho) + ": " + path + ": ends before " + what);
    const auto& tok = lines[next].second;
    if (tok.size() < want_min || tok.size() > want_max)
      return Status::Corruption(std::string(kLfwWho) + ": " + Where(next) + ": expected " + what + ", got " +
                                std::to_string(tok.size()) + " fields");
    ++next;
    return &tok;
  }
};

Result<LfwLines> ReadLfwLines(const std::string& path, std::string* storage) {
  MR_ASSIGN_OR_RETURN(*storage, ReadListFile(path, kLfwWho));
  LfwLines l;
  l.path = path;
  for (const auto& [number, line] : NumberedLines(*storage)) {
    auto tok = WhitespaceTokens(line);
    if (!tok.empty()) l.lines.emplace_back(number, std::move(tok));
  }
  return l;
}

struct LfwList {
  std::string image_dir;
  std::map<std::string, int32_t, std::less<>> labels;
  Catalog* out;
  bool pairs;
};

Result<std::string> ImagePath(const LfwList& l, const LfwLines& f, size_t line, std::string_view name,
                              std::string_view number) {
  if (!CatalogSafeName(name))
    return Status::Corruption(std::string(kLfwWho) + ": " + f.Where(line) + ": '" + std::string(name.substr(0, 64)) +
                              "' is not a person's folder name");
  MR_ASSIGN_OR_RETURN(int64_t n, CatalogCount(number, kMaxImageNumber, kLfwWho, f.Where(line)));
  char digits[16];
  std::snprintf(digits, sizeof digits, "%04lld", static_cast<long long>(n));
  const std::string person(name);
  return (fs::path(l.image_dir) / person / (person + "_" + digits + ".jpg")).string();
}

Result<int32_t> Label(const LfwList& l, const LfwLines& f, size_t line, std::string_view name) {
  auto it = l.labels.find(name);
  if (it == l.labels.end())
    return Status::Corruption(std::string(kLfwWho) + ": " + f.Where(line) + ": '" + std::string(name.substr(0, 64)) +
                              "' is not a name of lfw-names.txt");
  return it->second;
}

// One "name count" line of a people list: its COUNT images. The person's
// folder must hold at least COUNT entries: the rows a list makes are then
// bounded by the files there (a crafted "name 99999999" line would list
// 10^8 paths otherwise).
Status AddPerson(LfwList& l, LfwLines& f) {
  const size_t line = f.next;
  MR_ASSIGN_OR_RETURN(auto tok, f.Take(2, 2, "'name count'"));
  MR_ASSIGN_OR_RETURN(int32_t label, Label(l, f, line, (*tok)[0]));
  MR_ASSIGN_OR_RETURN(int64_t count, CatalogCount((*tok)[1], kMaxImageNumber, kLfwWho, f.Where(line)));
  if (count > 0) {
    MR_ASSIGN_OR_RETURN(std::string last, ImagePath(l, f, line, (*tok)[0], (*tok)[1]));
    const fs::path folder = fs::path(last).parent_path();
    std::error_code ec;
    int64_t entries = 0;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end && entries < count; it.increment(ec)) ++entries;
    if (entries < count)
      return Status::Corruption(std::string(kLfwWho) + ": " + f.Where(line) + ": the list gives '" +
                                std::string((*tok)[0]) + "' " + std::to_string(count) + " images (up to " + last +
                                "), its folder holds " + std::to_string(entries) + " files");
  }
  for (int64_t i = 1; i <= count; ++i) {
    MR_ASSIGN_OR_RETURN(std::string path, ImagePath(l, f, line, (*tok)[0], std::to_string(i)));
    l.out->paths.push_back(std::move(path));
    l.out->values.push_back(CatalogInt32(label));
  }
  return Status::OK();
}

// One "name i j" (matched) or "name1 i name2 j" (mismatched) pair line.
Status AddLfwPair(LfwList& l, LfwLines& f, bool matched) {
  const size_t line = f.next;
  MR_ASSIGN_OR_RETURN(auto tok, matched ? f.Take(3, 3, "'name i j'") : f.Take(4, 4, "'name1 i name2 j'"));
  const auto& t = *tok;
  MR_ASSIGN_OR_RETURN(std::string a, ImagePath(l, f, line, t[0], t[1]));
  MR_ASSIGN_OR_RETURN(std::string b, matched ? ImagePath(l, f, line, t[0], t[2]) : ImagePath(l, f, line, t[2], t[3]));
  l.out->paths.push_back(std::move(a));
  l.out->paths.push_back(std::move(b));
  l.out->values.push_back(CatalogInt32(matched ? 1 : 0));
  return Status::OK();
}

Status AddList(LfwList& l, const std::string& path, bool tenfold) {
  std::string storage;
  MR_ASSIGN_OR_RETURN(LfwLines f, ReadLfwLines(path, &storage));
  const int64_t kMaxCount = int64_t{1} << 30;
  if (!l.pairs) {
    int64_t folds = 1;
    if (tenfold) {
      MR_ASSIGN_OR_RETURN(auto tok, f.Take(1, 1, "the number of folds"));
      MR_ASSIGN_OR_RETURN(folds, CatalogCount((*tok)[0], kMaxCount, kLfwWho, f.Where(0)));
    }
    for (int64_t fold = 0; fold < folds; ++fold) {
      const size_t line = f.next;
      MR_ASSIGN_OR_RETURN(auto tok, f.Take(1, 1, "the number of people"));
      MR_ASSIGN_OR_RETURN(int64_t n, CatalogCount((*tok)[0], kMaxCount, kLfwWho, f.Where(line)));
      for (int64_t i = 0; i < n; ++i) MR_RETURN_IF_ERROR(AddPerson(l, f));
    }
  } else {
    int64_t folds = 1, per = 0;
    MR_ASSIGN_OR_RETURN(auto tok, f.Take(tenfold ? 2 : 1, 2, tenfold ? "'folds pairs'" : "the number of pairs"));
    MR_ASSIGN_OR_RETURN(per, CatalogCount(tok->back(), kMaxCount, kLfwWho, f.Where(0)));
    if (tenfold) {
      MR_ASSIGN_OR_RETURN(folds, CatalogCount(tok->front(), kMaxCount, kLfwWho, f.Where(0)));
    } else if (tok->size() != 1) {
      return Status::Corruption(std::string(kLfwWho) + ": " + f.Where(0) + ": expected the number of pairs");
    }
    for (int64_t fold = 0; fold < folds; ++fold)
      for (int matched = 1; matched >= 0; --matched)
        for (int64_t i = 0; i < per; ++i) MR_RETURN_IF_ERROR(AddLfwPair(l, f, matched == 1));
  }
  if (f.next < f.lines.size())
    return Status::Corruption(std::string(kLfwWho) + ": " + f.Where(f.next) +
                              ": a line past the entries the counts announce");
  return Status::OK();
}

}  // namespace

Result<Catalog> ListLfw(const nlohmann::json& args) {
  MR_RETURN_IF_ERROR(CatalogArgsOnly(args, {"task", "usage", "image_set"}));
  MR_ASSIGN_OR_RETURN(std::string task, CatalogStringArg(args, "task", "people"));
  MR_ASSIGN_OR_RETURN(std::string usage, CatalogStringArg(args, "usage", "all"));
  MR_ASSIGN_OR_RETURN(std::string image_set, CatalogStringArg(args, "image_set", "funneled"));
  if (task != "people" && task != "pairs")
    return Status::InvalidArgument(std::string(kLfwWho) + ": task must be 'people' or 'pairs', got '" + task + "'");
  std::vector<std::string> lists;
  if (usage == "10fold") lists = {task + ".txt"};
  else if (usage == "train") lists = {task + "DevTrain.txt"};
  else if (usage == "test") lists = {task + "DevTest.txt"};
  else if (usage == "all") lists = {task + "DevTrain.txt", task + "DevTest.txt"};
  else
    return Status::InvalidArgument(std::string(kLfwWho) + ": usage must be '10fold', 'train', 'test' or 'all', got '" +
                                   usage + "'");
  std::string folder;
  if (image_set == "original") folder = "lfw";
  else if (image_set == "funneled") folder = "lfw_funneled";
  else if (image_set == "deepfunneled") folder = "lfw-deepfunneled";
  else
    return Status::InvalidArgument(std::string(kLfwWho) + ": image_set must be 'original', 'funneled' or "
                                   "'deepfunneled', got '" + image_set + "'");
  const std::string dir = args["dataset_dir"].get<std::string>();
  Catalog c;
  LfwList l{(fs::path(dir) / folder).string(), {}, &c, task == "pairs"};
  {
    std::string storage;
    MR_ASSIGN_OR_RETURN(LfwLines names, ReadLfwLines((fs::path(dir) / "lfw-names.txt").string(), &storage));
    for (size_t i = 0; i < names.lines.size(); ++i) {
      const auto& tok = names.lines[i].second;
      if (tok.size() != 2)
        return Status::Corruption(std::string(kLfwWho) + ": " + names.Where(i) + ": expected 'name count'");
      if (!l.labels.emplace(std::string(tok[0]), static_cast<int32_t>(i)).second)
        return Status::Corruption(std::string(kLfwWho) + ": " + names.Where(i) + ": '" +
                                  std::string(tok[0].substr(0, 64)) + "' is named twice");
    }
  }
  if (l.pairs) {
    c.columns = {"image1", "image2", "label"};
    c.file_columns = 2;
  } else {
    c.columns = {"image", "label"};
    c.file_columns = 1;
  }
  for (const auto& list : lists) MR_RETURN_IF_ERROR(AddList(l, (fs::path(dir) / list).string(), usage == "10fold"));
  return c;
}

}  // namespace mindrecord
