#include "pipeline/nodes/raw_source.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <pugixml.hpp>

#include "mindrecord/file.h"
#include "pipeline/nodes/tree_spec.h"
#include "pipeline/row_vectors.h"
#include "writers/convert/convert_context.h"
#include "writers/convert/image_codec.h"
#include "writers/convert/sources.h"

namespace mindrecord {

namespace fs = std::filesystem;
using json = nlohmann::json;

// How one MindSpore column is made from a converter row's field (outside the
// anonymous namespace: RawSource::Impl holds these).
enum class RawKind : uint8_t {
  kImage,    // bytes field: the file's bytes (uint8 1-D), or decoded HWC RGB with `decode`
  kPixels,   // bytes field of raw HWC uint8 pixels: reshaped to `shape`
  kScalar,   // int field: an int32 scalar
  kColumn,   // int32 [N] field: int32 [N, 1], as MindSpore's per-object columns
  kColumnOfFloats,  // float32 [N] field: int32 [N, 1], each value truncated (COCO panoptic 'area')
  kStuffSegmentation,  // COCO seg_* fields: MindSpore's Stuff 'segmentation' (see StuffSegmentation)
  kBoxXyxy,  // float32 [N, 4] (xmin, ymin, xmax, ymax): MindSpore's (xmin, ymin, w, h)
  kCopy,     // the field as the converter stores it
};

struct RawColumnSpec {
  std::string name;   // MindSpore's column name
  std::string field;  // the converter row's field
  RawKind kind;
  std::vector<int64_t> shape;  // kPixels
};

namespace {

const std::set<std::string>& RawFormats() {
  static const std::set<std::string> k = {"imagefolder", "cifar10", "cifar100", "mnist", "emnist", "voc", "coco"};
  return k;
}

// MindSpore's default VOC labels: the class names the split's annotations
// use, sorted, numbered from 0. An annotation that does not parse is left to
// the row that reads it (its error names the file).
std::vector<std::string> VocClassesUsed(const convert::SplitPlan& plan) {
  std::set<std::string> names;
  for (size_t i = 0; i < plan.num_items; ++i) {
    pugi::xml_document doc;
    // Read as the row reads it (a FIFO refused, not waited on).
    auto text = convert::ReadWholeFile(plan.item_name(i));
    if (!text.ok() || !doc.load_buffer(text->data(), text->size())) continue;
    for (pugi::xml_node obj : doc.child("annotation").children("object")) names.insert(obj.child_value("name"));
  }
  return {names.begin(), names.end()};
}

// MindSpore's CocoDataset 'segmentation' (task Stuff): float32 [R, L], one
// row per polygon of each annotation (its x, y coordinates) and per RLE (its
// run lengths), in annotation order, each padded with -1 to the longest.
Result<Tensor> StuffSegmentation(const Row& row) {
  auto array = [&](const char* name) -> const Value* {
    const Value* v = row.Find(name);
    return v != nullptr && v->kind() == Value::Kind::kArray ? v : nullptr;
  };
  const Value *polys = array("seg_polygons"), *lens = array("seg_polygon_lengths"), *counts = array("seg_polygon_counts");
  const Value *rle = array("seg_rle_counts"), *rle_lens = array("seg_rle_lengths");
  if (!polys || !lens || !counts || !rle || !rle_lens) return Status::Corruption("no segmentation fields in the row");
  const std::vector<float> p = polys->ArrayAs<float>();
  const std::vector<int32_t> pl = lens->ArrayAs<int32_t>(), pc = counts->ArrayAs<int32_t>();
  const std::vector<int64_t> r = rle->ArrayAs<int64_t>();
  const std::vector<int32_t> rl = rle_lens->ArrayAs<int32_t>();
  if (pc.size() != rl.size()) return Status::Corruption("segmentation fields of different annotation counts");
  std::vector<std::pair<const float*, const int64_t*>> starts;  // each row's polygon or RLE values
  std::vector<size_t> sizes;
  size_t pi = 0, po = 0, ro = 0;
  for (size_t a = 0; a < pc.size(); ++a) {
    for (int32_t k = 0; k < pc[a]; ++k, ++pi) {
      if (pi >= pl.size() || pl[pi] < 0 || po + static_cast<size_t>(pl[pi]) > p.size())
        return Status::Corruption("segmentation polygons past their coordinates");
      starts.emplace_back(p.data() + po, nullptr);
      sizes.push_back(static_cast<size_t>(pl[pi]));
      po += static_cast<size_t>(pl[pi]);
    }
    if (rl[a] > 0) {
      if (ro + static_cast<size_t>(rl[a]) > r.size()) return Status::Corruption("segmentation RLE past its runs");
      starts.emplace_back(nullptr, r.data() + ro);
      sizes.push_back(static_cast<size_t>(rl[a]));
      ro += static_cast<size_t>(rl[a]);
    }
  }
  size_t width = 0;
  for (size_t s : sizes) width = std::max(width, s);
  Tensor t = Tensor::Make(TensorType::kFloat32, {static_cast<int64_t>(sizes.size()), static_cast<int64_t>(width)});
  float* o = t.mutable_data_as<float>();
  for (size_t i = 0; i < sizes.size(); ++i) {
    for (size_t j = 0; j < width; ++j) {
      o[i * width + j] = j >= sizes[i]      ? -1.f
                         : starts[i].first ? starts[i].first[j]
                                           : static_cast<float>(starts[i].second[j]);
    }
  }
  return t;
}

Result<Tensor> Column(const RawColumnSpec& c, const Row& row, bool decode) {
  if (c.kind == RawKind::kStuffSegmentation) return StuffSegmentation(row);
  const Value* v = row.Find(c.field);
  if (v == nullptr || v->is_null()) return Status::Corruption("no '" + c.field + "' in the row");
  switch (c.kind) {
    case RawKind::kImage: {
      if (!decode) return Tensor::FromString(TensorType::kBytes, v->bytes());
      int h = 0, w = 0;
      MR_ASSIGN_OR_RETURN(std::string px, convert::DecodeImageFileToRgb(v->bytes(), &h, &w));
      Tensor t = Tensor::Make(TensorType::kUInt8, {h, w, 3});
      std::memcpy(t.MutableData(), px.data(), px.size());
      return t;
    }
    case RawKind::kPixels: {
      const std::string& b = v->bytes();
      int64_t n = 1;
      for (int64_t d : c.shape) n *= d;
      if (static_cast<int64_t>(b.size()) != n) {
        return Status::Corruption("image of " + std::to_string(b.size()) + " pixel bytes, expected " +
                                  std::to_string(n));
      }
      Tensor t = Tensor::Make(TensorType::kUInt8, c.shape);
      std::memcpy(t.MutableData(), b.data(), b.size());
      return t;
    }
    case RawKind::kScalar: {
      Tensor t = Tensor::Make(TensorType::kInt32, {});
      *t.mutable_data_as<int32_t>() = static_cast<int32_t>(v->as_int());
      return t;
    }
    case RawKind::kColumn: {
      std::vector<int32_t> e = v->ArrayAs<int32_t>();
      Tensor t = Tensor::Make(TensorType::kInt32, {static_cast<int64_t>(e.size()), 1});
      if (!e.empty()) std::memcpy(t.MutableData(), e.data(), e.size() * sizeof(int32_t));
      return t;
    }
    case RawKind::kColumnOfFloats: {
      std::vector<float> e = v->ArrayAs<float>();
      Tensor t = Tensor::Make(TensorType::kInt32, {static_cast<int64_t>(e.size()), 1});
      int32_t* o = t.mutable_data_as<int32_t>();
      for (size_t i = 0; i < e.size(); ++i) {
        const float f = e[i];
        o[i] = std::isfinite(f) && f > -2147483648.f && f < 2147483648.f ? static_cast<int32_t>(f) : 0;
      }
      return t;
    }
    case RawKind::kStuffSegmentation:
      break;
    case RawKind::kBoxXyxy: {
      std::vector<float> e = v->ArrayAs<float>();
      const int64_t n = static_cast<int64_t>(e.size() / 4);
      Tensor t = Tensor::Make(TensorType::kFloat32, {n, 4});
      float* o = t.mutable_data_as<float>();
      for (int64_t i = 0; i < n; ++i) {
        o[4 * i] = e[4 * i];
        o[4 * i + 1] = e[4 * i + 1];
        o[4 * i + 2] = e[4 * i + 2] - e[4 * i];
        o[4 * i + 3] = e[4 * i + 3] - e[4 * i + 1];
      }
      return t;
    }
    case RawKind::kCopy:
      break;
  }
  DataType type = v->kind() == Value::Kind::kArray ? v->array_dtype()
                  : v->kind() == Value::Kind::kString ? DataType::kString
                  : v->kind() == Value::Kind::kInt ? DataType::kInt64
                  : v->kind() == Value::Kind::kFloat ? DataType::kFloat64 : DataType::kBytes;
  return Tensor::FromValue(*v, type);
}

}  // namespace

struct RawSource::Impl {
  // Held for the row builders: VOC's notes its box warnings through it.
  // Rows are built again every epoch, so notes are not kept (LimitNotes(0)):
  // VOCDataset keeps boxes past the image edge as MindSpore does.
  std::shared_ptr<convert::ConvertContext> ctx;
  std::vector<convert::SplitPlan> plans;  // the usage's splits, in row order
  std::vector<RawColumnSpec> specs;
  bool decode = false;
  std::vector<int32_t> label;  // imagefolder with class_indexing: per row; else empty
};

RawSource::~RawSource() = default;

Result<std::unique_ptr<RawSource>> RawSource::Open(const json& node) {
  std::unique_ptr<RawSource> s(new RawSource());
  s->impl_ = std::make_unique<Impl>();
  Impl& m = *s->impl_;
  const std::string format = node.at("format").get<std::string>();
  const std::string dir = node.at("dataset_dir").get<std::string>();
  const std::string usage = node.value("usage", std::string());
  const std::string task = node.value("task", std::string());
  m.decode = node.value("decode", false);
  convert::ConvertOptions o;
  o.workers = 1;
  o.on_error = convert::OnError::kFail;
  const bool idx = format == "mnist" || format == "emnist";
  o.encode = format == "cifar10" || format == "cifar100" || idx ? convert::EncodeMode::kRaw : convert::EncodeMode::kKeep;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound(dir + ": dataset_dir is not a folder");
  std::vector<convert::SplitPlan> plans;
  if (format == "imagefolder") {
    m.ctx = std::make_shared<convert::ConvertContext>(o);
    MR_ASSIGN_OR_RETURN(plans, convert::PlanImageFolder(dir, *m.ctx));
    m.specs = {{"image", "image", RawKind::kImage, {}}, {"label", "label", RawKind::kScalar, {}}};
  } else if (format == "cifar10" || format == "cifar100" || idx) {
    if (usage != "all") o.split = usage;  // the other split's files are not read
    m.ctx = std::make_shared<convert::ConvertContext>(o);
    if (format == "emnist") {
      const std::string prefix = "emnist-" + node.at("name").get<std::string>() + "-";
      MR_ASSIGN_OR_RETURN(plans, convert::PlanIdxFiles(dir, *m.ctx, {{"train", prefix + "train"},
                                                                      {"test", prefix + "test"}}));
    } else {
      MR_ASSIGN_OR_RETURN(plans, format == "mnist"     ? convert::PlanMnist(dir, *m.ctx)
                                 : format == "cifar10" ? convert::PlanCifar10(dir, *m.ctx)
                                                       : convert::PlanCifar100(dir, *m.ctx));
    }
    if (idx) {
      m.specs = {{"image", "data", RawKind::kPixels, {28, 28, 1}}, {"label", "label", RawKind::kScalar, {}}};
    } else if (format == "cifar10") {
      m.specs = {{"image", "data", RawKind::kPixels, {32, 32, 3}}, {"label", "label", RawKind::kScalar, {}}};
    } else {
      m.specs = {{"image", "data", RawKind::kPixels, {32, 32, 3}},
                 {"coarse_label", "coarse_label", RawKind::kScalar, {}},
                 {"fine_label", "fine_label", RawKind::kScalar, {}}};
    }
  } else if (format == "voc") {
    const bool det = task == "Detection";
    o.task = det ? "detection" : "segmentation";
    o.split = usage;
    if (det) {
      if (node.contains("class_indexing")) {
        // The converter numbers classes by their place in a list.
        std::map<int64_t, std::string> by_label;
        for (auto it = node["class_indexing"].begin(); it != node["class_indexing"].end(); ++it) {
          const int64_t label = it.value().get<int64_t>();
          if (!by_label.emplace(label, it.key()).second) {
            return Status::InvalidArgument("VOCDataset class_indexing maps both '" + by_label[label] + "' and '" +
                                           it.key() + "' to " + std::to_string(label) + " (not supported)");
          }
        }
        const int64_t n = by_label.empty() ? 0 : by_label.rbegin()->first + 1;
        o.classes.assign(static_cast<size_t>(n), std::string("\x01 unused label"));
        for (auto& [label, name] : by_label) o.classes[static_cast<size_t>(label)] = name;
      } else {
        // A first pass lists the images; the labels are the used names, sorted.
        convert::ConvertContext probe(o);
        MR_ASSIGN_OR_RETURN(auto listed, convert::PlanVoc(dir, probe));
        o.classes = VocClassesUsed(listed.at(0));
        if (o.classes.empty()) return Status::Corruption(dir + ": no <object> names in the '" + usage + "' list's annotations");
      }
      m.specs = {{"image", "image", RawKind::kImage, {}},          {"bbox", "bbox", RawKind::kBoxXyxy, {}},
                 {"label", "label", RawKind::kColumn, {}},          {"difficult", "difficult", RawKind::kColumn, {}},
                 {"truncated", "truncated", RawKind::kColumn, {}}};
    } else {
      m.specs = {{"image", "image", RawKind::kImage, {}}, {"target", "mask", RawKind::kImage, {}}};
    }
    m.ctx = std::make_shared<convert::ConvertContext>(o);
    MR_ASSIGN_OR_RETURN(plans, convert::PlanVoc(dir, *m.ctx));
  } else if (format == "coco") {
    // MindSpore's CocoDataset: the images with annotations, in the order of
    // the 'images' list; the columns of the task.
    o.task = task == "Keypoint" ? "keypoint" : task == "Panoptic" ? "panoptic" : "detection";
    o.annotations = node.at("annotation_file").get<std::string>();
    o.coco_annotated_only = true;
    o.coco_panoptic_masks = false;
    m.ctx = std::make_shared<convert::ConvertContext>(o);
    MR_ASSIGN_OR_RETURN(plans, convert::PlanCoco(dir, *m.ctx));
    const RawColumnSpec image{"image", "image", RawKind::kImage, {}};
    if (task == "Stuff") {
      m.specs = {image, {"segmentation", "", RawKind::kStuffSegmentation, {}}, {"iscrowd", "iscrowd", RawKind::kColumn, {}}};
    } else if (task == "Keypoint") {
      m.specs = {image, {"keypoints", "keypoints", RawKind::kCopy, {}},
                 {"num_keypoints", "num_keypoints", RawKind::kColumn, {}}};
    } else {
      m.specs = {image, {"bbox", "bbox", RawKind::kCopy, {}}, {"category_id", "category_id", RawKind::kColumn, {}},
                 {"iscrowd", "iscrowd", RawKind::kColumn, {}}};
      if (task == "Panoptic") m.specs.push_back({"area", "area", RawKind::kColumnOfFloats, {}});
    }
  } else {
    return Status::InvalidArgument("unknown raw format '" + format + "'");
  }
  // The usage's splits. "all" reads them in MindSpore's order, its files
  // sorted by name: CIFAR-10's data_batch_* before test_batch, but MNIST's
  // t10k-*, EMNIST's emnist-NAME-test-* and CIFAR-100's test.bin before their
  // train files.
  for (auto& p : plans) {
    if (p.split.empty() || usage == "all" || p.split == usage) m.plans.push_back(std::move(p));
  }
  if (usage == "all" && (idx || format == "cifar100")) {
    std::stable_partition(m.plans.begin(), m.plans.end(), [](const convert::SplitPlan& p) { return p.split == "test"; });
  }
  if (m.plans.empty()) return Status::NotFound(dir + ": no '" + usage + "' files for " + format);
  m.ctx->LimitNotes(0);
  for (const auto& c : m.specs) s->names_.push_back(c.name);

  // Rows; imagefolder keeps MindSpore's extensions and class_indexing.
  const bool folder = format == "imagefolder";
  std::set<std::string> exts;
  if (folder && node.contains("extensions")) exts = node["extensions"].get<std::set<std::string>>();
  std::map<std::string, int32_t> class_index;
  if (folder && node.contains("class_indexing")) class_index = node["class_indexing"].get<std::map<std::string, int32_t>>();
  // The listing's paths are JoinPath(dir, "CLASS/.../NAME"): split as
  // strings (a std::filesystem::path per image cost more than the listing).
  const size_t prefix = JoinPath(dir, "x").size() - 1;
  for (uint32_t p = 0; p < m.plans.size(); ++p) {
    const auto& plan = m.plans[p];
    for (uint64_t i = 0; i < plan.num_items; ++i) {
      if (folder && (!exts.empty() || !class_index.empty())) {
        const std::string path = plan.item_name(i);
        const std::string_view rel = std::string_view(path).substr(std::min(prefix, path.size()));
        if (!exts.empty()) {
          const std::string_view name = rel.substr(rel.rfind('/') + 1);  // npos + 1 == 0
          if (!exts.count(std::string(FileExtension(name)))) continue;
        }
        if (!class_index.empty()) {
          auto it = class_index.find(std::string(rel.substr(0, rel.find('/'))));
          if (it == class_index.end()) continue;
          m.label.push_back(it->second);
        }
      }
      s->rows_.emplace_back(p, i);
    }
  }
  if (folder && s->rows_.empty()) {
    // MindSpore refuses a folder with no row too; here only the filters can
    // leave none (a class folder without images is refused when listed).
    std::string what;
    if (!exts.empty()) what += " extensions " + nlohmann::json(exts).dump();
    if (!class_index.empty()) what += std::string(what.empty() ? "" : " and") + " class_indexing's folders";
    return Status::NotFound(dir + ": no image matches" + what + " (listed: files with an image extension, " +
                            convert::ImageFolderExtensions() + " in any case, in the class folders)");
  }
  return s;
}

DatasetLayout RawSource::Layout() const { return DatasetLayout::Uniform(rows_.size(), 1); }

Status RawSource::Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const {
  const Impl& m = *impl_;
  for (size_t k = 0; k < ids.size(); ++k) {
    const uint64_t id = ids[k];
    if (id >= rows_.size()) return Status::InvalidArgument("row " + std::to_string(id) + " of " + std::to_string(rows_.size()));
    const auto& plan = m.plans[rows_[id].first];
    const uint64_t item = rows_[id].second;
    Result<Row> row = plan.MakeRow(item);
    std::vector<Tensor> cols = TakeRowVector();  // given back by the batch it goes into
    Status st = row.status();
    for (size_t c = 0; st.ok() && c < m.specs.size(); ++c) {
      auto t = Column(m.specs[c], *row, m.decode);
      if (!t.ok()) st = t.status().WithContext("column '" + m.specs[c].name + "'");
      else cols.push_back(std::move(t).value());
    }
    if (!st.ok()) {
      MR_RETURN_IF_ERROR(fn(k, st.WithContext(plan.item_name(item)), {}, 0));
      continue;
    }
    if (!m.label.empty()) *cols[1].mutable_data_as<int32_t>() = m.label[id];
    MR_RETURN_IF_ERROR(fn(k, Status::OK(), std::move(cols), row->value_bytes()));
  }
  return Status::OK();
}

std::string RawSource::Where(uint64_t id) const {
  std::string where = "row " + std::to_string(id);
  if (id < rows_.size()) where += " ('" + impl_->plans[rows_[id].first].item_name(rows_[id].second) + "')";
  return where;
}

Result<json> NormalizeRawLeaf(const json& j, const std::string& path) {
  static const std::set<std::string> kKeys = {"node",           "format", "dataset_dir",     "usage",
                                              "decode",         "extensions", "class_indexing", "task",
                                              "annotation_file", "name",   "sampler",         "seed"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!kKeys.count(it.key())) return PlanNodeError(path, "unknown key '" + it.key() + "' for a 'raw' node");
  }
  if (!j.contains("format") || !j["format"].is_string() || !RawFormats().count(j["format"].get<std::string>())) {
    return PlanNodeError(path, "'format' must be one of imagefolder, cifar10, cifar100, mnist, emnist, voc, coco, got " +
                               (j.contains("format") ? j["format"].dump() : std::string("nothing")));
  }
  const std::string format = j["format"].get<std::string>();
  if (!j.contains("dataset_dir") || !j["dataset_dir"].is_string() || j["dataset_dir"].get<std::string>().empty()) {
    return PlanNodeError(path, "needs 'dataset_dir', a folder path");
  }
  json out = {{"node", "raw"}, {"format", format}, {"dataset_dir", j["dataset_dir"]}};
  auto allowed = [&](const char* key, std::initializer_list<const char*> formats) -> Status {
    if (!j.contains(key)) return Status::OK();
    for (const char* f : formats) {
      if (format == f) return Status::OK();
    }
    return PlanNodeError(path, "'" + std::string(key) + "' does not apply to format '" + format + "'");
  };
  MR_RETURN_IF_ERROR(allowed("decode", {"imagefolder", "voc", "coco"}));
  MR_RETURN_IF_ERROR(allowed("extensions", {"imagefolder"}));
  MR_RETURN_IF_ERROR(allowed("class_indexing", {"imagefolder", "voc"}));
  MR_RETURN_IF_ERROR(allowed("task", {"voc", "coco"}));
  MR_RETURN_IF_ERROR(allowed("annotation_file", {"coco"}));
  MR_RETURN_IF_ERROR(allowed("usage", {"cifar10", "cifar100", "mnist", "emnist", "voc"}));
  MR_RETURN_IF_ERROR(allowed("name", {"emnist"}));
  if (format == "emnist") {
    static const std::set<std::string> kNames = {"byclass", "bymerge", "balanced", "letters", "digits", "mnist"};
    const json n = j.value("name", json());
    if (!n.is_string() || !kNames.count(n.get<std::string>())) {
      return PlanNodeError(path, "'name' must be one of byclass, bymerge, balanced, letters, digits, mnist, got " +
                                     n.dump());
    }
    out["name"] = n;
  }
  if (format == "cifar10" || format == "cifar100" || format == "mnist" || format == "emnist") {
    const json u = j.value("usage", json("all"));
    if (u != "train" && u != "test" && u != "all") {
      return PlanNodeError(path, "'usage' must be 'train', 'test' or 'all', got " + u.dump());
    }
    out["usage"] = u;
  }
  if (format == "voc") {
    const json u = j.value("usage", json("train"));
    if (!u.is_string() || u.get<std::string>().empty() || u.get<std::string>().find('/') != std::string::npos) {
      return PlanNodeError(path, "'usage' must name an ImageSets list (e.g. 'train'), got " + u.dump());
    }
    out["usage"] = u;
    const json t = j.value("task", json("Segmentation"));
    if (t != "Detection" && t != "Segmentation") {
      return PlanNodeError(path, "'task' must be 'Detection' or 'Segmentation', got " + t.dump());
    }
    out["task"] = t;
    if (j.contains("class_indexing") && t != "Detection") {
      return PlanNodeError(path, "'class_indexing' applies to task 'Detection' only");
    }
  }
  if (format == "coco") {
    const json t = j.value("task", json("Detection"));
    if (t != "Detection" && t != "Stuff" && t != "Keypoint" && t != "Panoptic") {
      return PlanNodeError(path, "'task' must be 'Detection', 'Stuff', 'Keypoint' or 'Panoptic' for coco, got " + t.dump());
    }
    out["task"] = t;
    if (!j.contains("annotation_file") || !j["annotation_file"].is_string()) {
      return PlanNodeError(path, "needs 'annotation_file', the annotation JSON path");
    }
    out["annotation_file"] = j["annotation_file"];
  }
  if (j.contains("decode")) {
    if (!j["decode"].is_boolean()) return PlanNodeError(path, "'decode' must be true or false, got " + j["decode"].dump());
    out["decode"] = j["decode"];
  }
  if (j.contains("extensions")) {
    const json& e = j["extensions"];
    bool ok = e.is_array();
    for (const auto& x : e) ok = ok && x.is_string();
    if (!ok) return PlanNodeError(path, "'extensions' must be a list of strings (e.g. [\".JPEG\"]), got " + e.dump());
    if (!e.empty()) out["extensions"] = e;
  }
  if (j.contains("class_indexing")) {
    const json& c = j["class_indexing"];
    bool ok = c.is_object();
    for (auto it = c.begin(); ok && it != c.end(); ++it) {
      ok = it.value().is_number_integer() && it.value().get<int64_t>() >= 0 &&
           it.value().get<int64_t>() <= INT32_MAX;
    }
    if (!ok) return PlanNodeError(path, "'class_indexing' must map names to ints >= 0, got " + c.dump());
    if (!c.empty()) out["class_indexing"] = c;
  }
  MR_ASSIGN_OR_RETURN(out["sampler"], LeafSampler(j, path));
  MR_RETURN_IF_ERROR(CopyLeafSeed(j, &out, path));
  return out;
}

}  // namespace mindrecord
