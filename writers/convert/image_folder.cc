// ImageFolder (INPUT/<class>/<image>) and ImageNet map files ("file,label"
// lines + an image folder) -> `image: bytes`, `label: int32`,
// `file_name: string`, as MindSpore's ImageNetToMR (--encode raw adds
// `image_shape`).
#include <algorithm>
#include <cctype>
#include <iterator>
#include <filesystem>
#include <sstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "mindrecord/dir_walk.h"
#include "mindrecord/file.h"
#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace fs = std::filesystem;
namespace {

struct ImageItem {
  std::string path;       // full path, for reading and messages
  std::string file_name;  // stored in the dataset
  int64_t label = 0;
};

Result<Schema> ImageSchema(std::string desc, EncodeMode mode) {
  std::vector<Field> fields;
  AddImageFields(fields, "image", mode);
  fields.push_back({"label", DataType::kInt32, false, {}});
  fields.push_back({"file_name", DataType::kString, false, {}});
  return Schema::Make(std::move(fields), std::move(desc));
}

SplitPlan ImagePlan(Schema schema, std::shared_ptr<std::vector<ImageItem>> items, EncodeMode mode) {
  SplitPlan plan;
  plan.schema = std::move(schema);
  plan.index_fields = std::vector<std::string>{"file_name", "label"};
  plan.num_items = items->size();
  plan.item_name = [items](size_t i) { return (*items)[i].path; };
  plan.item_bytes = [items](size_t i) { return FileBytes((*items)[i].path); };
  plan.make_row = [items, mode](size_t i) -> Result<Row> {
    const ImageItem& it = (*items)[i];
    MR_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(it.path));
    Row row;
    MR_RETURN_IF_ERROR(SetImageField(row, "image", std::move(bytes), mode));
    row.Set("label", Value::Int(it.label));
    row.Set("file_name", Value::String(it.file_name));
    return row;
  };
  return plan;
}

bool Hidden(const fs::path& p) { return p.filename().string().rfind('.', 0) == 0; }

// torchvision's IMG_EXTENSIONS, compared case-insensitively as it does.
constexpr const char* kImageExtensions[] = {".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp"};

bool IsImageName(std::string_view name) {
  std::string ext(FileExtension(name));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::any_of(std::begin(kImageExtensions), std::end(kImageExtensions), [&](const char* e) { return ext == e; });
}

// The images under one class folder as torchvision's ImageFolder finds them:
// every subfolder (not following folder links), image extensions only,
// ordered by folder then file name. Other files go to `ignored`. Names are
// handled as strings (WalkFiles): a std::filesystem::path per file made
// listing 100k images take 0.3 s.
Status ListClass(const std::string& dir, std::vector<std::string>* files, std::vector<std::string>* ignored) {
  std::vector<std::pair<std::string, std::string>> found;  // (folder relative to dir, file name)
  MR_RETURN_IF_ERROR(WalkFiles(dir, [&](const std::string& rel_dir, const std::string& name) {
    if (IsImageName(name)) {
      found.emplace_back(rel_dir, name);
    } else {
      ignored->push_back(JoinPath(rel_dir.empty() ? dir : JoinPath(dir, rel_dir), name));
    }
  }));
  std::sort(found.begin(), found.end());
  files->reserve(files->size() + found.size());
  for (auto& [sub, name] : found) files->push_back(sub.empty() ? std::move(name) : sub + "/" + name);
  return Status::OK();
}

}  // namespace

std::string ImageFolderExtensions() {
  std::string exts;
  for (const char* e : kImageExtensions) exts += std::string(exts.empty() ? "" : " ") + e;
  return exts;
}

PlanResult PlanImageFolder(const std::string& input, ConvertContext& ctx) {
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return Status::InvalidArgument(input + ": imagefolder INPUT must be a folder");
  std::vector<std::string> classes;
  std::vector<std::string> ignored;
  for (const auto& e : fs::directory_iterator(input, ec)) {
    if (Hidden(e.path())) continue;
    if (e.is_directory()) {
      classes.push_back(e.path().filename().string());
    } else {
      ignored.push_back(e.path().string());  // e.g. a README beside the class folders
    }
  }
  if (ec) return Status::IOError(input + ": cannot list: " + ec.message());
  std::sort(classes.begin(), classes.end());
  if (classes.empty()) return Status::NotFound(input + ": no class folders (expected INPUT/<class>/<image>)");
  auto items = std::make_shared<std::vector<ImageItem>>();
  std::vector<std::string> empty;
  for (size_t label = 0; label < classes.size(); ++label) {
    std::vector<std::string> files;
    const std::string dir = JoinPath(input, classes[label]);
    MR_RETURN_IF_ERROR(ListClass(dir, &files, &ignored));
    if (files.empty()) empty.push_back(classes[label]);
    for (auto& f : files) {
      items->push_back({JoinPath(dir, f), classes[label] + "/" + f, static_cast<int64_t>(label)});
    }
  }
  if (!empty.empty()) {
    std::string names;
    for (const auto& c : empty) names += (names.empty() ? "'" : ", '") + c + "'";
    const std::string exts = ImageFolderExtensions();
    return Status::Corruption(input + ": class folder(s) " + names + " hold no image (" + exts +
                              "); each would take a label no row has. Remove them or add images");
  }
  if (!ignored.empty()) {
    std::sort(ignored.begin(), ignored.end());
    std::string some;
    for (size_t i = 0; i < ignored.size() && i < 5; ++i) some += (i ? ", " : "") + ignored[i];
    ctx.Note("ignored " + std::to_string(ignored.size()) + " file(s) without an image extension: " + some +
             (ignored.size() > 5 ? ", ..." : ""));
  }
  // The class map travels in the schema description, as JSON.
  nlohmann::json map = nlohmann::json::object();
  for (size_t label = 0; label < classes.size(); ++label) map[classes[label]] = label;
  nlohmann::json desc = {{"class_to_label", map}};
  ctx.Note("class -> label: " + map.dump());
  MR_ASSIGN_OR_RETURN(Schema schema, ImageSchema(desc.dump(), ctx.options().encode));
  std::vector<SplitPlan> plans;
  plans.push_back(ImagePlan(std::move(schema), items, ctx.options().encode));
  return plans;
}

PlanResult PlanImageNet(const std::string& input, ConvertContext& ctx) {
  const ConvertOptions& o = ctx.options();
  std::error_code ec;
  std::string map_file = o.annotations;
  if (map_file.empty()) map_file = fs::is_directory(input, ec) ? (fs::path(input) / "annotation.txt").string() : input;
  std::string image_dir = o.image_dir;
  if (image_dir.empty()) {
    fs::path base = fs::is_directory(input, ec) ? fs::path(input) : fs::path(map_file).parent_path();
    image_dir = fs::is_directory(base / "images", ec) ? (base / "images").string() : base.string();
  }
  // ReadWholeFile, not a stream: a FIFO in the map's place is refused, not
  // waited on.
  auto text = ReadWholeFile(map_file);
  if (!text.ok()) return Status(text.status().code(), map_file + ": cannot read the map file: " + text.status().message());
  std::istringstream in(*text);
  auto items = std::make_shared<std::vector<ImageItem>>();
  std::string line;
  size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    // "file,label" or "file label"; the file name may itself hold spaces.
    size_t sep = line.find_last_of(", \t");
    std::string where = map_file + " line " + std::to_string(line_no);
    if (sep == std::string::npos || sep == 0) {
      MR_RETURN_IF_ERROR(ctx.BadInput(where, Status::Corruption("expected 'file_name,label', got '" + line + "'")));
      continue;
    }
    std::string name = line.substr(0, sep);
    while (!name.empty() && (name.back() == ' ' || name.back() == ',')) name.pop_back();
    // The name is joined to the image folder: an absolute one or one with a
    // ".." component would read a file outside the dataset.
    if (name.empty() || name.front() == '/' || HasParentComponent(name)) {
      MR_RETURN_IF_ERROR(ctx.BadInput(where, Status::Corruption("'" + name.substr(0, 64) +
                                                                "': the path leaves the image folder")));
      continue;
    }
    std::string label_text = line.substr(sep + 1);
    char* end = nullptr;
    long long label = std::strtoll(label_text.c_str(), &end, 10);
    if (label_text.empty() || *end != '\0' || label < INT32_MIN || label > INT32_MAX) {
      MR_RETURN_IF_ERROR(ctx.BadInput(where, Status::Corruption("label '" + label_text + "' is not an int32")));
      continue;
    }
    items->push_back({(fs::path(image_dir) / name).string(), name, label});
  }
  if (items->empty()) return Status::NotFound(map_file + ": the map file lists no images");
  MR_ASSIGN_OR_RETURN(Schema schema, ImageSchema("imagenet_schema", o.encode));
  std::vector<SplitPlan> plans;
  plans.push_back(ImagePlan(std::move(schema), items, o.encode));
  return plans;
}

}  // namespace mindrecord::convert
