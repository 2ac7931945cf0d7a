// PASCAL VOC -> MindRecord, driven by an ImageSets list.
//   detection:    image: bytes, file_name: string, width/height: int32,
//                 bbox: float32 [-1,4] (xmin, ymin, xmax, ymax as in the XML),
//                 label, difficult, truncated: int32 [-1]; the class list is
//                 in the schema description.
//   segmentation: image: bytes, mask: bytes (SegmentationClass PNG), file_name.
// With --encode raw, image holds the decoded RGB pixels and image_shape:
// int32 [3] their shape; the mask stays the PNG (its palette indexes are the labels).
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <memory>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"

namespace mindrecord::convert {
namespace fs = std::filesystem;
namespace {

const std::vector<std::string>& VocClasses() {
  static const std::vector<std::string> k = {
      "aeroplane", "bicycle", "bird",  "boat",      "bottle", "bus",         "car",   "cat",  "chair", "cow",
      "diningtable", "dog",   "horse", "motorbike", "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"};
  return k;
}

Result<std::vector<std::string>> ReadList(const std::string& path) {
  // ReadWholeFile, not a stream: a FIFO in the list's place is refused, not
  // waited on.
  auto text = ReadWholeFile(path);
  if (!text.ok()) return Status(text.status().code(), path + ": cannot read the ImageSets list: " + text.status().message());
  std::vector<std::string> ids;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    // "2008_000008" or "2008_000008  1" (per-class lists): the first word.
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    size_t e = line.find_first_of(" \t\r", b);
    ids.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
  }
  return ids;
}

// A required child holding a number.
Result<double> Number(const pugi::xml_node& parent, const char* name) {
  pugi::xml_node n = parent.child(name);
  if (!n) return Status::Corruption(std::string("missing <") + name + "> in <" + parent.name() + ">");
  std::string text = n.child_value();
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  while (end && (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')) ++end;
  if (text.empty() || *end != '\0') return Status::Corruption(std::string("<") + name + "> is not a number: '" + text + "'");
  return v;
}

struct VocObjects {
  int32_t width = 0, height = 0;
  std::vector<float> bbox;
  std::vector<int32_t> label, difficult, truncated;
  std::vector<std::string> warnings;  // boxes kept though past the image edge
};

// Boxes must have xmin >= 0, ymin >= 0, xmax > xmin, ymax > ymin. A box
// running past the image edge (MindSpore's own VOC test data has one) is
// kept with a warning, as MindSpore keeps it, unless `strict_boxes`.
Result<VocObjects> ParseAnnotation(const std::string& path, const std::vector<std::string>& classes,
                                   bool strict_boxes) {
  MR_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  pugi::xml_document doc;
  pugi::xml_parse_result pr = doc.load_buffer(text.data(), text.size());
  if (!pr) {
    return Status::Corruption(std::string("invalid XML at offset ") + std::to_string(pr.offset) + ": " +
                              pr.description());
  }
  pugi::xml_node ann = doc.child("annotation");
  if (!ann) return Status::Corruption("no <annotation> root element");
  pugi::xml_node size = ann.child("size");
  if (!size) return Status::Corruption("missing <size>");
  VocObjects out;
  MR_ASSIGN_OR_RETURN(double w, Number(size, "width"));
  MR_ASSIGN_OR_RETURN(double h, Number(size, "height"));
  if (w <= 0 || h <= 0 || w > INT32_MAX || h > INT32_MAX) return Status::Corruption("image size must be positive");
  out.width = static_cast<int32_t>(w);
  out.height = static_cast<int32_t>(h);
  size_t k = 0;
  for (pugi::xml_node obj : ann.children("object")) {
    std::string where = "object " + std::to_string(k++);
    std::string name = obj.child_value("name");
    auto it = std::find(classes.begin(), classes.end(), name);
    if (it == classes.end()) return Status::Corruption(where + ": unknown class '" + name + "'");
    pugi::xml_node box = obj.child("bndbox");
    if (!box) return Status::Corruption(where + ": missing <bndbox>");
    double c[4];
    const char* names[4] = {"xmin", "ymin", "xmax", "ymax"};
    for (int j = 0; j < 4; ++j) {
      auto v = Number(box, names[j]);
      if (!v.ok()) return v.status().WithContext(where);
      c[j] = *v;
    }
    char buf[200];
    if (c[0] < 0 || c[1] < 0 || c[0] >= c[2] || c[1] >= c[3]) {
      std::snprintf(buf, sizeof(buf), "bbox (%g,%g,%g,%g) is empty or has a negative corner", c[0], c[1], c[2], c[3]);
      return Status::Corruption(where + ": " + buf);
    }
    if (c[2] > w || c[3] > h) {
      std::snprintf(buf, sizeof(buf), "bbox (%g,%g,%g,%g) runs past the edge of the %dx%d image", c[0], c[1], c[2],
                    c[3], out.width, out.height);
      if (strict_boxes) return Status::Corruption(where + ": " + buf + " (strict_boxes)");
      out.warnings.push_back(path + ": " + where + ": " + buf + "; kept as it is (strict_boxes refuses such boxes)");
    }
    for (double v : c) out.bbox.push_back(static_cast<float>(v));
    out.label.push_back(static_cast<int32_t>(it - classes.begin()));
    // Optional flags, 0 when absent as in VOC's own tools.
    out.difficult.push_back(std::atoi(obj.child_value("difficult")));
    out.truncated.push_back(std::atoi(obj.child_value("truncated")));
  }
  if (out.label.empty()) return Status::Corruption("no <object> in the annotation");
  return out;
}

template <typename T>
Value Array(DataType t, const std::vector<T>& v, std::vector<int64_t> shape) {
  return Value::ArrayOf<T>(t, v, std::move(shape));
}

}  // namespace

PlanResult PlanVoc(const std::string& input, ConvertContext& ctx) {
  const ConvertOptions& o = ctx.options();
  const std::string task = o.task.empty() ? "detection" : o.task;
  if (task != "detection" && task != "segmentation")
    return Status::InvalidArgument("voc --task must be detection or segmentation, got '" + task + "'");
  const bool det = task == "detection";
  const std::string split = o.split.empty() ? "train" : o.split;
  const fs::path root(input);
  auto ids = std::make_shared<std::vector<std::string>>();
  MR_ASSIGN_OR_RETURN(*ids, ReadList((root / "ImageSets" / (det ? "Main" : "Segmentation") / (split + ".txt")).string()));
  if (ids->empty()) return Status::NotFound(input + ": ImageSets list '" + split + "' is empty");
  const std::vector<std::string> classes = o.classes.empty() ? VocClasses() : o.classes;

  SplitPlan plan;
  plan.num_items = ids->size();
  const EncodeMode mode = o.encode;
  const std::string r = root.string();
  if (det) {
    nlohmann::json desc = {{"task", "detection"}, {"classes", classes}};
    std::vector<Field> fields;
    AddImageFields(fields, "image", mode);
    fields.insert(fields.end(), {{"file_name", DataType::kString, false, {}},
                                 {"width", DataType::kInt32, false, {}},     {"height", DataType::kInt32, false, {}},
                                 {"bbox", DataType::kFloat32, true, {-1, 4}}, {"label", DataType::kInt32, true, {-1}},
                                 {"difficult", DataType::kInt32, true, {-1}}, {"truncated", DataType::kInt32, true, {-1}}});
    MR_ASSIGN_OR_RETURN(plan.schema, Schema::Make(fields, desc.dump()));
    plan.index_fields = std::vector<std::string>{"file_name"};
    ctx.Note("voc classes (label = position): " + nlohmann::json(classes).dump());
    plan.item_name = [ids, r](size_t i) { return (fs::path(r) / "Annotations" / ((*ids)[i] + ".xml")).string(); };
    plan.item_bytes = [ids, r](size_t i) {
      return FileBytes((fs::path(r) / "JPEGImages" / ((*ids)[i] + ".jpg")).string()) +
             FileBytes((fs::path(r) / "Annotations" / ((*ids)[i] + ".xml")).string());
    };
    ConvertContext* cx = &ctx;  // outlives the rows (Convert holds it)
    const bool strict = o.strict_boxes;
    plan.make_row = [ids, r, classes, mode, cx, strict](size_t i) -> Result<Row> {
      const std::string& id = (*ids)[i];
      MR_ASSIGN_OR_RETURN(VocObjects objs, ParseAnnotation((fs::path(r) / "Annotations" / (id + ".xml")).string(),
                                                           classes, strict));
      for (auto& w : objs.warnings) cx->Note("warning: " + w);
      const std::string img_path = (fs::path(r) / "JPEGImages" / (id + ".jpg")).string();
      auto bytes = ReadWholeFile(img_path);
      if (!bytes.ok()) return bytes.status().WithContext(img_path);
      const int64_t n = static_cast<int64_t>(objs.label.size());
      Row row;
      Status st = SetImageField(row, "image", std::move(bytes).value(), mode);
      if (!st.ok()) return st.WithContext(img_path);
      row.Set("file_name", Value::String(id + ".jpg"));
      row.Set("width", Value::Int(objs.width));
      row.Set("height", Value::Int(objs.height));
      row.Set("bbox", Array(DataType::kFloat32, objs.bbox, {n, 4}));
      row.Set("label", Array(DataType::kInt32, objs.label, {n}));
      row.Set("difficult", Array(DataType::kInt32, objs.difficult, {n}));
      row.Set("truncated", Array(DataType::kInt32, objs.truncated, {n}));
      return row;
    };
  } else {
    nlohmann::json desc = {{"task", "segmentation"}};
    std::vector<Field> fields;
    AddImageFields(fields, "image", mode);
    fields.push_back({"mask", DataType::kBytes, false, {}});
    fields.push_back({"file_name", DataType::kString, false, {}});
    MR_ASSIGN_OR_RETURN(plan.schema, Schema::Make(std::move(fields), desc.dump()));
    plan.index_fields = std::vector<std::string>{"file_name"};
    plan.item_name = [ids, r](size_t i) { return (fs::path(r) / "JPEGImages" / ((*ids)[i] + ".jpg")).string(); };
    plan.item_bytes = [ids, r](size_t i) {
      return FileBytes((fs::path(r) / "JPEGImages" / ((*ids)[i] + ".jpg")).string()) +
             FileBytes((fs::path(r) / "SegmentationClass" / ((*ids)[i] + ".png")).string());
    };
    plan.make_row = [ids, r, mode](size_t i) -> Result<Row> {
      const std::string& id = (*ids)[i];
      MR_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile((fs::path(r) / "JPEGImages" / (id + ".jpg")).string()));
      Row row;
      MR_RETURN_IF_ERROR(SetImageField(row, "image", std::move(bytes), mode));
      const std::string mask_path = (fs::path(r) / "SegmentationClass" / (id + ".png")).string();
      auto mask = ReadWholeFile(mask_path);
      if (!mask.ok()) return mask.status().WithContext(mask_path);
      // Masks are palette PNGs whose indexes are the labels: never re-encode.
      Status st = CheckImage(*mask);
      if (!st.ok()) return st.WithContext(mask_path);
      row.Set("mask", Value::Bytes(std::move(mask).value()));
      row.Set("file_name", Value::String(id + ".jpg"));
      return row;
    };
  }
  std::vector<SplitPlan> plans;
  plans.push_back(std::move(plan));
  return plans;
}

}  // namespace mindrecord::convert
