// COCO -> MindRecord: INPUT is the image folder, --annotations the JSON.
// One row per entry of "images", in file order, with its annotations:
//   detection:  bbox float32 [-1,4] (x, y, w, h), category_id int32 [-1],
//               iscrowd int32 [-1], area float32 [-1], and the segmentation
//               (polygons and RLE, see coco_segmentation.h)
//   keypoint:   the same plus num_keypoints int32 [-1], keypoints float32 [-1,K]
//   panoptic:   segments_info as bbox/category_id/iscrowd/area plus
//               segment_id int64 [-1], segmentation_file: string and
//               mask: bytes (the panoptic PNG, from --panoptic-dir)
//   captioning: captions: string (a JSON array of the captions)
// and always image: bytes (+ image_shape under --encode raw), file_name:
// string, image_id: int64.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "mindrecord/file.h"
#include "mindrecord/json_number.h"
#include "writers/convert/coco_segmentation.h"
#include "writers/convert/image_codec.h"
#include "writers/convert/json_file.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace fs = std::filesystem;
using nlohmann::json;
namespace {

enum class Task { kDetection, kKeypoint, kPanoptic, kCaptioning };

// Where one annotation's JSON text lies in the annotation file. The plan
// keeps these, not the parsed document (nlohmann holds a document in several
// times its file's size: 1.8 GB for a 310 MB instances file); each is read
// and parsed again when its image's row is built.
struct Span {
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct CocoImage {
  int64_t id = 0;
  std::string file_name;
  std::vector<Span> anns;  // this image's annotations, in file order
};

struct CocoData {
  std::shared_ptr<const RandomAccessFile> file;  // the annotation JSON, read again for the annotations
  std::vector<CocoImage> images;
  std::set<int64_t> categories;  // empty when the file lists none
  bool has_categories = false;
  size_t keypoint_width = 0;     // K for the keypoint task
};

// The annotation file read in two passes, neither keeping the document.
// The first keeps per image its "id" and "file_name", where "categories"
// lies, and how many times "annotations" is given; the second hands each
// element of the last "annotations" list, in order, to a function as soon
// as it ends: its span, "image_id" and the length of its "keypoints" list.
// For a key given twice the later value counts, as in a parsed document.
class CocoScan final : public JsonFileHandler {
 public:
  struct Image {
    std::optional<int64_t> id;
    std::optional<std::string> file_name;
  };
  struct Annotation {
    Span span;                        // length 0: not an object
    std::optional<int64_t> image_id;
    int64_t keypoints = -1;           // -1: no "keypoints" list
  };
  using AnnotationFn = std::function<Status(uint64_t index, const Annotation&)>;

  // First pass without `fn`; the second with it, after the first.
  explicit CocoScan(AnnotationFn fn = nullptr, uint64_t annotation_lists = 0)
      : fn_(std::move(fn)), last_list_(annotation_lists) {}

  bool has_images = false, has_annotations = false;  // the last such key held a list
  std::vector<Image> images;
  std::optional<Span> categories;   // the last "categories" when it is a list
  uint64_t annotation_lists = 0;    // times "annotations" is given
  Status status;                    // the first error of `fn`, which stopped the pass

  bool null() override { return Scalar(nullptr); }
  bool boolean(bool v) override { return Scalar(v); }
  bool number_integer(number_integer_t v) override { return Scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return Scalar(v); }
  bool string(string_t& v) override {
    if (!Begin(Kind::kScalar, nullptr)) return false;
    if (depth_ == 3 && field_ == Field::kFileName) images.back().file_name = v;
    return true;
  }
  bool start_object(std::size_t) override { return Open(Kind::kObject); }
  bool start_array(std::size_t) override { return Open(Kind::kArray); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      section_ = Section::kOther;
      if (k == "images" && !fn_) section_ = Section::kImages;
      if (k == "categories" && !fn_) section_ = Section::kCategories;
      if (k == "annotations" && ++annotation_lists == last_list_) section_ = Section::kAnnotations;
      if (k == "annotations" && !fn_) section_ = Section::kAnnotationsSeen;
    } else if (depth_ == 3 && in_element_) {
      field_ = Field::kOther;
      if (section_ == Section::kImages && k == "id") field_ = Field::kId;
      if (section_ == Section::kImages && k == "file_name") field_ = Field::kFileName;
      if (section_ == Section::kAnnotations && k == "image_id") field_ = Field::kImageId;
      if (section_ == Section::kAnnotations && k == "keypoints") field_ = Field::kKeypoints;
    }
    return true;
  }

 private:
  enum class Kind { kObject, kArray, kScalar };
  enum class Section { kNone, kImages, kAnnotationsSeen, kAnnotations, kCategories, kOther };
  enum class Field { kOther, kId, kFileName, kImageId, kKeypoints };

  template <typename T>
  bool Scalar(T v) {
    const nlohmann::json value(v);
    return Begin(Kind::kScalar, &value);
  }
  bool Open(Kind kind) {
    if (!Begin(kind, nullptr)) return false;
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    if (depth_ == 1 && section_ == Section::kCategories && categories) categories->length = offset() - categories->offset;
    if (depth_ == 3) counting_ = false;
    if (depth_ == 2 && section_ == Section::kAnnotations && has_annotations) {
      if (in_element_) ann_.span.length = offset() - ann_.span.offset;
      in_element_ = false;
      return Emit();
    }
    if (depth_ == 2) in_element_ = false;
    return true;
  }
  // Hands the annotation that just ended to fn_.
  bool Emit() {
    status = fn_(annotations_++, ann_);
    return status.ok();
  }

  // A value starts at depth_ (its bracket just read, for a list or object);
  // `scalar` is the value of a number, boolean or null. False stops the pass.
  bool Begin(Kind kind, const nlohmann::json* scalar) {
    if (depth_ == 1) {  // the value of a top-level key
      const bool list = kind == Kind::kArray;
      if (section_ == Section::kImages) {
        has_images = list;
        images.clear();
      } else if (section_ == Section::kAnnotationsSeen || section_ == Section::kAnnotations) {
        has_annotations = list;
      } else if (section_ == Section::kCategories) {
        categories.reset();
        if (list) categories = Span{offset() - 1, 0};
      }
    } else if (depth_ == 2) {  // an element of a top-level list
      in_element_ = kind == Kind::kObject;
      field_ = Field::kOther;
      if (section_ == Section::kImages && has_images) {
        images.emplace_back();
      } else if (section_ == Section::kAnnotations && has_annotations) {
        ann_ = Annotation{};
        if (in_element_) ann_.span.offset = offset() - 1;
        if (kind == Kind::kScalar) return Emit();  // a list ends in Close
      } else {
        in_element_ = false;
      }
    } else if (depth_ == 3 && in_element_) {  // a field of an image or annotation
      const std::optional<int64_t> number = scalar ? JsonInt64(*scalar) : std::nullopt;
      switch (field_) {
        case Field::kId: images.back().id = number; break;
        case Field::kFileName: images.back().file_name.reset(); break;  // string() sets it
        case Field::kImageId: ann_.image_id = number; break;
        case Field::kKeypoints:
          counting_ = kind == Kind::kArray;
          ann_.keypoints = counting_ ? 0 : -1;
          break;
        case Field::kOther: break;
      }
    } else if (depth_ == 4 && counting_) {  // an element of an annotation's "keypoints"
      ++ann_.keypoints;
    }
    return true;
  }

  const AnnotationFn fn_;
  const uint64_t last_list_;  // which "annotations" the second pass reads (1 = the first)
  uint64_t depth_ = 0;        // lists and objects open
  Section section_ = Section::kNone;
  Field field_ = Field::kOther;
  bool in_element_ = false;  // inside an object element of "images" or "annotations"
  bool counting_ = false;    // inside an annotation's "keypoints" list
  Annotation ann_;           // the annotation being read
  uint64_t annotations_ = 0; // elements of the list handed on so far
};

// The JSON value at `span` of the annotation file (an annotation, or the
// categories), parsed alone.
Result<json> ReadSpan(const CocoData& data, const Span& span) {
  std::string text(static_cast<size_t>(span.length), '\0');
  MR_RETURN_IF_ERROR(data.file->ReadAt(span.offset, text.size(), text.data()));
  try {
    return json::parse(text);
  } catch (const json::exception&) {
    return Status::Corruption("bytes " + std::to_string(span.offset) + " to " + std::to_string(span.offset + span.length) +
                              " no longer hold the JSON value they held when the file was first read (it changed)");
  }
}

// obj[key] as an integer in [lo, hi]: a JSON integer, or a number without a
// fractional part (some tools write ids as 3.0). Anything else would be cut
// or wrapped into a wrong value, so it is corruption naming the key.
Result<int64_t> Int(const json& obj, const char* key, int64_t lo, int64_t hi) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return Status::Corruption(std::string("missing or non-numeric '") + key + "'");
  const auto v = JsonInt(*it, lo, hi, /*integral_floats=*/true);
  if (!v)
    return Status::Corruption(std::string("'") + key + "' is " + it->dump() + ", not an integer in [" +
                              std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return *v;
}

// "annotation id N" (or "annotation N of the image") for messages.
std::string AnnotationName(const json& a, size_t k) {
  auto id = a.is_object() ? a.find("id") : a.end();
  if (id != a.end() && id->is_number_integer()) return "annotation id " + id->dump();
  return "annotation " + std::to_string(k) + " of the image";
}

// Builds one image's row fields from its annotations (or segments_info).
// *seg_file_out receives the panoptic annotation's "file_name".
Status AddAnnotations(Task task, const CocoData& data, const CocoImage& img, Row& row, std::string* seg_file_out) {
  std::vector<json> parsed;
  parsed.reserve(img.anns.size());
  for (const Span& span : img.anns) {
    MR_ASSIGN_OR_RETURN(json a, ReadSpan(data, span));
    parsed.push_back(std::move(a));
  }
  std::vector<float> bbox, area, keypoints;
  std::vector<int32_t> category, iscrowd, num_keypoints;
  std::vector<int64_t> segment_id;
  std::string seg_file;
  CocoSegmentation seg;
  json captions = json::array();
  std::vector<const json*> objs;
  for (const json& parsed_a : parsed) {
    const json* a = &parsed_a;
    if (task == Task::kCaptioning) {
      auto c = a->find("caption");
      if (c == a->end() || !c->is_string()) return Status::Corruption("annotation without a 'caption' string");
      captions.push_back(*c);
    } else if (task == Task::kPanoptic) {
      auto si = a->find("segments_info");
      if (si == a->end() || !si->is_array()) return Status::Corruption("panoptic annotation without 'segments_info'");
      for (const json& s : *si) objs.push_back(&s);
      if (a->contains("file_name") && (*a)["file_name"].is_string()) seg_file = (*a)["file_name"];
    } else {
      objs.push_back(a);
    }
  }
  for (size_t idx = 0; idx < objs.size(); ++idx) {
    const json* o = objs[idx];
    if (!o->is_object()) return Status::Corruption("annotation is not an object");
    if (task == Task::kDetection || task == Task::kKeypoint) {
      auto s = o->find("segmentation");
      Status st = AppendSegmentation(s == o->end() ? nullptr : &*s, seg);
      if (!st.ok()) return st.WithContext(AnnotationName(*o, idx));
    }
    auto b = o->find("bbox");
    if (b == o->end() || !b->is_array() || b->size() != 4) return Status::Corruption("annotation without a 4-number 'bbox'");
    for (const json& v : *b) {
      if (!v.is_number()) return Status::Corruption("non-numeric bbox value");
      bbox.push_back(v.get<float>());
    }
    if (bbox[bbox.size() - 2] < 0 || bbox[bbox.size() - 1] < 0) return Status::Corruption("bbox with a negative size");
    constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min(), kInt32Max = std::numeric_limits<int32_t>::max();
    // An integer field of this annotation; errors name the annotation.
    auto field = [&](const char* key, int64_t lo, int64_t hi) -> Result<int64_t> {
      auto v = Int(*o, key, lo, hi);
      if (!v.ok()) return v.status().WithContext(AnnotationName(*o, idx));
      return v;
    };
    MR_ASSIGN_OR_RETURN(int64_t cat, field("category_id", kInt32Min, kInt32Max));
    if (data.has_categories && !data.categories.count(cat))
      return Status::Corruption("unknown category_id " + std::to_string(cat) + " (not in 'categories')");
    category.push_back(static_cast<int32_t>(cat));
    int64_t crowd = 0;
    if (o->contains("iscrowd") && (*o)["iscrowd"].is_number()) {
      MR_ASSIGN_OR_RETURN(crowd, field("iscrowd", kInt32Min, kInt32Max));
    }
    iscrowd.push_back(static_cast<int32_t>(crowd));
    area.push_back(o->contains("area") && (*o)["area"].is_number() ? (*o)["area"].get<float>() : 0.f);
    if (task == Task::kPanoptic) {
      MR_ASSIGN_OR_RETURN(int64_t id, field("id", std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
      segment_id.push_back(id);
    }
    if (task == Task::kKeypoint) {
      auto k = o->find("keypoints");
      if (k == o->end() || !k->is_array() || k->size() != data.keypoint_width)
        return Status::Corruption("'keypoints' must be a list of " + std::to_string(data.keypoint_width) + " numbers");
      for (const json& v : *k) {
        if (!v.is_number()) return Status::Corruption("non-numeric keypoint value");
        keypoints.push_back(v.get<float>());
      }
      int64_t visible = 0;
      if (o->contains("num_keypoints") && (*o)["num_keypoints"].is_number()) {
        MR_ASSIGN_OR_RETURN(visible, field("num_keypoints", 0, kInt32Max));
      }
      num_keypoints.push_back(static_cast<int32_t>(visible));
    }
  }
  if (task == Task::kCaptioning) {
    row.Set("captions", Value::String(captions.dump()));
    return Status::OK();
  }
  const int64_t n = static_cast<int64_t>(category.size());
  row.Set("bbox", Value::ArrayOf<float>(DataType::kFloat32, bbox, {n, 4}));
  row.Set("category_id", Value::ArrayOf<int32_t>(DataType::kInt32, category, {n}));
  row.Set("iscrowd", Value::ArrayOf<int32_t>(DataType::kInt32, iscrowd, {n}));
  row.Set("area", Value::ArrayOf<float>(DataType::kFloat32, area, {n}));
  if (task == Task::kKeypoint) {
    row.Set("num_keypoints", Value::ArrayOf<int32_t>(DataType::kInt32, num_keypoints, {n}));
    row.Set("keypoints", Value::ArrayOf<float>(DataType::kFloat32, keypoints, {n, static_cast<int64_t>(data.keypoint_width)}));
  }
  if (task == Task::kDetection || task == Task::kKeypoint) SetSegmentationFields(seg, row);
  if (task == Task::kPanoptic) {
    row.Set("segment_id", Value::ArrayOf<int64_t>(DataType::kInt64, segment_id, {n}));
    row.Set("segmentation_file", Value::String(seg_file));
    *seg_file_out = seg_file;
  }
  return Status::OK();
}

Result<Schema> CocoSchema(Task task, const json& desc, size_t k, EncodeMode mode) {
  std::vector<Field> f;
  AddImageFields(f, "image", mode);
  f.push_back({"file_name", DataType::kString, false, {}});
  f.push_back({"image_id", DataType::kInt64, false, {}});
  if (task == Task::kCaptioning) {
    f.push_back({"captions", DataType::kString, false, {}});
  } else {
    f.push_back({"bbox", DataType::kFloat32, true, {-1, 4}});
    f.push_back({"category_id", DataType::kInt32, true, {-1}});
    f.push_back({"iscrowd", DataType::kInt32, true, {-1}});
    f.push_back({"area", DataType::kFloat32, true, {-1}});
  }
  if (task == Task::kDetection || task == Task::kKeypoint) AddSegmentationFields(f);
  if (task == Task::kKeypoint) {
    f.push_back({"num_keypoints", DataType::kInt32, true, {-1}});
    f.push_back({"keypoints", DataType::kFloat32, true, {-1, static_cast<int64_t>(k)}});
  }
  if (task == Task::kPanoptic) {
    f.push_back({"segment_id", DataType::kInt64, true, {-1}});
    f.push_back({"segmentation_file", DataType::kString, false, {}});
    f.push_back({"mask", DataType::kBytes, false, {}});
  }
  return Schema::Make(f, desc.dump());
}

// The panoptic PNG named `file_name` in `dir`; COCO names them "<id>.png", and
// some files leave the ".png" out.
Result<std::string> ReadPanopticPng(const std::string& dir, const std::string& file_name) {
  if (file_name.empty()) return Status::Corruption("panoptic annotation without a 'file_name'");
  fs::path path = fs::path(dir) / file_name;
  std::error_code ec;
  if (!fs::exists(path, ec) && !path.has_extension()) path += ".png";
  auto png = ReadWholeFile(path.string());
  if (!png.ok()) return png.status().WithContext("panoptic PNG " + path.string());
  Status st = CheckImage(*png);
  if (!st.ok()) return st.WithContext("panoptic PNG " + path.string());
  return png;
}

}  // namespace

PlanResult PlanCoco(const std::string& input, ConvertContext& ctx) {
  const ConvertOptions& o = ctx.options();
  const std::string task_name = o.task.empty() ? "detection" : o.task;
  static const std::map<std::string, Task> kTasks = {{"detection", Task::kDetection}, {"keypoint", Task::kKeypoint},
                                                     {"panoptic", Task::kPanoptic}, {"captioning", Task::kCaptioning}};
  auto t = kTasks.find(task_name);
  if (t == kTasks.end())
    return Status::InvalidArgument("coco --task must be detection, keypoint, panoptic or captioning, got '" + task_name + "'");
  const Task task = t->second;
  if (o.annotations.empty()) return Status::InvalidArgument("coco needs --annotations FILE (the annotation JSON)");
  const std::string& ann_path = o.annotations;
  auto data = std::make_shared<CocoData>();
  {
    auto file = FileSystem::Default()->OpenRead(ann_path);  // its errors name the path
    if (!file.ok()) return file.status();
    data->file = std::move(file).value();
  }
  CocoScan scan;
  Status parsed = ParseJsonFile(*data->file, scan);
  if (!parsed.ok()) return parsed.WithContext(ann_path);
  if (!scan.has_images) return Status::Corruption(ann_path + ": missing the 'images' list");
  if (!scan.has_annotations) return Status::Corruption(ann_path + ": missing the 'annotations' list");
  std::map<int64_t, size_t> by_id;
  for (size_t i = 0; i < scan.images.size(); ++i) {
    CocoScan::Image& im = scan.images[i];
    if (!im.id || !im.file_name) {
      MR_RETURN_IF_ERROR(ctx.BadInput(ann_path + " images[" + std::to_string(i) + "]",
                                      Status::Corruption("an image needs a 64-bit integer 'id' and a 'file_name'")));
      continue;
    }
    CocoImage img{*im.id, std::move(*im.file_name), {}};
    if (!by_id.emplace(img.id, data->images.size()).second) {
      MR_RETURN_IF_ERROR(ctx.BadInput(ann_path + " images[" + std::to_string(i) + "]",
                                      Status::Corruption("duplicate image id " + std::to_string(img.id))));
      continue;
    }
    data->images.push_back(std::move(img));
  }
  scan.images = {};
  json categories;
  if (scan.categories) {
    MR_ASSIGN_OR_RETURN(categories, ReadSpan(*data, *scan.categories));
    data->has_categories = true;
    json names = json::object();
    for (const json& c : categories) {
      if (const auto id = c.is_object() && c.contains("id") ? JsonInt64(c["id"]) : std::nullopt) {
        data->categories.insert(*id);
        names[std::to_string(*id)] = c.contains("name") ? c["name"] : json("");  // as given
      }
    }
    ctx.Note("coco categories (id -> name): " + names.dump());
  }
  // The second pass: each annotation to its image as it is read.
  CocoScan annotations(
      [&](uint64_t i, const CocoScan::Annotation& a) -> Status {
        auto it = a.image_id ? by_id.find(*a.image_id) : by_id.end();
        if (it == by_id.end()) {
          return ctx.BadInput(ann_path + " annotations[" + std::to_string(i) + "]",
                              Status::Corruption("'image_id' names no entry of 'images'"));
        }
        if (task == Task::kKeypoint && data->keypoint_width == 0 && a.keypoints > 0)
          data->keypoint_width = static_cast<size_t>(a.keypoints);
        data->images[it->second].anns.push_back(a.span);
        return Status::OK();
      },
      scan.annotation_lists);
  parsed = ParseJsonFile(*data->file, annotations);
  if (!annotations.status.ok()) return annotations.status;
  if (!parsed.ok()) return parsed.WithContext(ann_path);
  if (task == Task::kKeypoint && data->keypoint_width == 0)
    return Status::Corruption(ann_path + ": --task keypoint but no annotation has 'keypoints'");
  if (o.coco_annotated_only) {
    data->images.erase(std::remove_if(data->images.begin(), data->images.end(),
                                      [](const CocoImage& im) { return im.anns.empty(); }),
                       data->images.end());
  }

  // Panoptic PNGs: --panoptic-dir, else COCO's layout: the folder named after
  // the JSON beside it (annotations/panoptic_train2017.json -> annotations/panoptic_train2017/).
  std::string panoptic_dir = o.panoptic_dir;
  const bool masks = task == Task::kPanoptic && o.coco_panoptic_masks;
  if (masks) {
    if (panoptic_dir.empty()) panoptic_dir = (fs::path(ann_path).parent_path() / fs::path(ann_path).stem()).string();
    std::error_code ec;
    if (!fs::is_directory(panoptic_dir, ec))
      return Status::NotFound(panoptic_dir + ": no folder of panoptic PNGs for " + ann_path +
                              " (give --panoptic-dir)");
  } else if (!panoptic_dir.empty()) {
    return Status::InvalidArgument("--panoptic-dir applies to --task panoptic only (with its masks)");
  }

  json desc = {{"task", task_name}};
  if (data->has_categories) desc["categories"] = std::move(categories);
  SplitPlan plan;
  MR_ASSIGN_OR_RETURN(plan.schema, CocoSchema(task, desc, data->keypoint_width, o.encode));
  plan.index_fields = std::vector<std::string>{"file_name", "image_id"};
  plan.num_items = data->images.size();
  const std::string dir = input;
  plan.item_name = [data, dir](size_t i) { return (fs::path(dir) / data->images[i].file_name).string(); };
  plan.item_bytes = [data, dir](size_t i) { return FileBytes((fs::path(dir) / data->images[i].file_name).string()); };
  const EncodeMode mode = o.encode;
  plan.make_row = [data, dir, task, mode, ann_path, panoptic_dir, masks](size_t i) -> Result<Row> {
    const CocoImage& img = data->images[i];
    Row row;
    std::string seg_file;
    Status st = AddAnnotations(task, *data, img, row, &seg_file);
    if (!st.ok()) return st.WithContext(ann_path);
    if (masks) {
      // An image without a panoptic annotation gets an empty mask.
      std::string png;
      if (!img.anns.empty()) {
        MR_ASSIGN_OR_RETURN(png, ReadPanopticPng(panoptic_dir, seg_file));
      }
      row.Set("mask", Value::Bytes(std::move(png)));
    }
    MR_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile((fs::path(dir) / img.file_name).string()));
    MR_RETURN_IF_ERROR(SetImageField(row, "image", std::move(bytes), mode));
    row.Set("file_name", Value::String(img.file_name));
    row.Set("image_id", Value::Int(img.id));
    return row;
  };
  std::vector<SplitPlan> plans;
  plans.push_back(std::move(plan));
  return plans;
}

}  // namespace mindrecord::convert
