#include "pipeline/nodes/catalog_source.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>

#include "mindrecord/file.h"
#include "pipeline/nodes/catalog_layouts.h"
#include "pipeline/nodes/listed_files.h"
#include "pipeline/row_vectors.h"

namespace mindrecord {

using json = nlohmann::json;

namespace {

using Lister = Result<Catalog> (*)(const json&);

const std::map<std::string, Lister>& Listers() {
  static const std::map<std::string, Lister> kListers = {
      {"lfw", &ListLfw},         {"lsun", &ListLsun},       {"div2k", &ListDiv2k},
      {"flickr", &ListFlickr},   {"kitti", &ListKitti},     {"widerface", &ListWiderFace},
      {"manifest", &ListManifest}, {"sbu", &ListSbu},       {"rendered_sst2", &ListRenderedSst2},
      {"multi30k", &ListMulti30k}, {"qmnist", &ListQmnist}, {"stl10", &ListStl10},
      {"usps", &ListUsps},       {"semeion", &ListSemeion}, {"squad", &ListSquad},
      {"iwslt", &ListIwslt},     {"cityscapes", &ListCityscapes},
      {"fake_image", &ListFakeImage}, {"flowers102", &ListFlowers102}, {"caltech101", &ListCaltech101},
      {"svhn", &ListSvhn},       {"sb", &ListSb},
      {"photo_tour", &ListPhotoTour}};
  return kListers;
}

Result<Catalog> ListCatalog(const json& args) {
  if (!args.is_object()) return Status::InvalidArgument("a 'catalog' source's args must be an object");
  const json layout = args.value("layout", json());
  auto it = layout.is_string() ? Listers().find(layout.get<std::string>()) : Listers().end();
  if (it == Listers().end()) {
    std::string known;
    for (const auto& [name, f] : Listers()) known += (known.empty() ? "'" : ", '") + name + "'";
    return Status::InvalidArgument("a 'catalog' source's layout must be one of " + known + ", got " + layout.dump());
  }
  if (!args.contains("dataset_dir") || !args["dataset_dir"].is_string())
    return Status::InvalidArgument("a 'catalog' source needs args.dataset_dir (a string)");
  if (!args.value("decode", json(false)).is_boolean())
    return Status::InvalidArgument("a 'catalog' source's decode is a bool");
  MR_ASSIGN_OR_RETURN(Catalog c, it->second(args));
  const size_t fixed = c.file_columns + c.RecordColumns() + c.generated.size();
  bool ok = !c.columns.empty() && fixed <= c.columns.size() && c.file_readers.size() <= c.file_columns &&
            c.record_opened.size() <= c.record_files.size();
  const uint64_t rows = ok ? c.rows() : 0;
  ok = ok && c.paths.size() == rows * c.file_columns && c.records.size() == rows * c.RecordColumns() &&
       c.values.size() == rows * c.ValueColumns();
  for (const auto& r : c.records) ok = ok && r.file < c.record_files.size();
  if (!c.order.empty()) {
    std::vector<size_t> sorted = c.order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < sorted.size(); ++k) ok = ok && sorted[k] == k;
    ok = ok && sorted.size() == c.columns.size();
  }
  if (!ok) return Status::Internal("the '" + layout.get<std::string>() + "' catalog's rows do not match its columns");
  if (rows == 0)  // as MindSpore's loaders: an empty dataset is a mistake in the path or arguments
    return Status::NotFound("the '" + layout.get<std::string>() + "' dataset in " + args["dataset_dir"].dump() +
                            " has no rows for the arguments given");
  return c;
}

std::vector<std::string> OutputColumns(const Catalog& c) {
  if (c.order.empty()) return c.columns;
  std::vector<std::string> out;
  for (size_t o : c.order) out.push_back(c.columns[o]);
  return out;
}

class CatalogSource : public Source {
 public:
  CatalogSource(Catalog c, std::vector<std::shared_ptr<const RandomAccessFile>> files, bool decode)
      : c_(std::move(c)), files_(std::move(files)), decode_(decode), names_(OutputColumns(c_)) {}

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return c_.rows(); }
  DatasetLayout Layout() const override { return DatasetLayout::Uniform(c_.rows(), 1); }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    const size_t nf = c_.file_columns, nr = c_.RecordColumns(), ng = c_.generated.size(), nv = c_.ValueColumns();
    for (size_t k = 0; k < ids.size(); ++k) {
      const uint64_t id = ids[k];
      if (id >= c_.rows()) return Status::InvalidArgument("row " + std::to_string(id) + " of " + std::to_string(c_.rows()));
      std::vector<Tensor> cols = TakeRowVector();  // given back by the batch it goes into
      uint64_t bytes = 0;
      Status st;
      for (size_t f = 0; f < nf + nr + ng && st.ok(); ++f) {
        Result<Tensor> t = f < nf ? File(c_.paths[id * nf + f], f)
                           : f < nf + nr ? Record(id, f - nf)
                                         : c_.generated[f - nf - nr](id);
        if (!t.ok()) {
          st = t.status();
          break;
        }
        bytes += t->size_bytes();
        cols.push_back(std::move(t).value());
      }
      if (!st.ok()) {
        cols.clear();
        GiveRowVector(std::move(cols));
        MR_RETURN_IF_ERROR(fn(k, st, {}, 0));
        continue;
      }
      for (size_t v = 0; v < nv; ++v) {
        const Tensor& value = c_.values[id * nv + v];
        bytes += value.size_bytes();
        cols.push_back(value);  // shared: ops that write in place copy it first
      }
      if (!c_.order.empty()) {
        std::vector<Tensor> listed = std::move(cols);
        cols = TakeRowVector();
        for (size_t o : c_.order) cols.push_back(std::move(listed[o]));
        listed.clear();
        GiveRowVector(std::move(listed));
      }
      MR_RETURN_IF_ERROR(fn(k, Status::OK(), std::move(cols), bytes));
    }
    return Status::OK();
  }

  // The files the rows read (what a persistent cache's key identifies the
  // dataset by).
  std::vector<std::string> files() const override {
    std::vector<std::string> out = c_.paths;
    out.insert(out.end(), c_.record_files.begin(), c_.record_files.end());
    return out;
  }

  std::string Where(uint64_t id) const override {
    std::string where = "row " + std::to_string(id);
    if (id >= c_.rows()) return where;
    if (c_.file_columns) return where + " ('" + c_.paths[id * c_.file_columns] + "')";
    if (c_.RecordColumns()) return where + " (" + RecordWhere(c_.records[id * c_.RecordColumns()]) + ")";
    return where;
  }

 private:
  std::string RecordWhere(const CatalogRecord& r) const {
    return "'" + c_.record_files[r.file] + "' at byte " + std::to_string(r.offset);
  }

  Result<Tensor> File(const std::string& path, size_t column) const {
    if (column < c_.file_readers.size() && c_.file_readers[column]) return c_.file_readers[column](path);
    return ReadImageFile(path, decode_);
  }

  Result<Tensor> Record(uint64_t id, size_t column) const {
    const CatalogRecord& r = c_.records[id * c_.RecordColumns() + column];
    std::string bytes(r.length, '\0');
    Status st = files_[r.file]->ReadAt(r.offset, r.length, bytes.data());
    if (!st.ok()) return Status(st.code(), RecordWhere(r) + ": " + st.message());
    return c_.record_specs[column].decode(std::move(bytes), RecordWhere(r));
  }

  Catalog c_;
  std::vector<std::shared_ptr<const RandomAccessFile>> files_;  // c_.record_files, open
  bool decode_;
  std::vector<std::string> names_;  // in the order given
};

}  // namespace

Status CatalogArgsOnly(const json& args, std::initializer_list<const char*> allowed) {
  for (auto it = args.begin(); it != args.end(); ++it) {
    const std::string& k = it.key();
    bool ok = k == "layout" || k == "dataset_dir" || k == "decode";
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok)
      return Status::InvalidArgument("a '" + args.value("layout", std::string()) + "' catalog does not take the arg '" +
                                     k + "'");
  }
  return Status::OK();
}

Result<std::string> CatalogStringArg(const json& args, const char* key, const char* fallback) {
  const json v = args.value(key, json(fallback));
  if (!v.is_string())
    return Status::InvalidArgument("a '" + args.value("layout", std::string()) + "' catalog's " + key +
                                   " must be a string, got " + v.dump());
  return v.get<std::string>();
}

bool CatalogSafeName(std::string_view n) {
  return !n.empty() && n != "." && n != ".." && n.find('/') == std::string_view::npos &&
         n.find('\\') == std::string_view::npos && n.find('\0') == std::string_view::npos;
}

Result<int64_t> CatalogCount(std::string_view s, int64_t max, const std::string& who, const std::string& where) {
  int64_t v = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0 || v > max)
    return Status::Corruption(who + ": " + where + ": '" + std::string(s.substr(0, 32)) +
                              "' is not a whole number from 0 to " + std::to_string(max));
  return v;
}

Tensor CatalogInt32(int32_t v) {
  Tensor t = Tensor::Make(TensorType::kInt32, {});
  *t.mutable_data_as<int32_t>() = v;
  return t;
}

Tensor CatalogInt32s(Shape shape, const std::vector<int32_t>& v) {
  Tensor t = Tensor::Make(TensorType::kInt32, std::move(shape));
  if (!v.empty()) std::memcpy(t.MutableData(), v.data(), v.size() * sizeof(int32_t));
  return t;
}

Tensor CatalogFloats(Shape shape, const std::vector<float>& v) {
  Tensor t = Tensor::Make(TensorType::kFloat32, std::move(shape));
  if (!v.empty()) std::memcpy(t.MutableData(), v.data(), v.size() * sizeof(float));
  return t;
}

Result<double> CatalogNumber(std::string_view s, const std::string& who, const std::string& where) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return Status::Corruption(who + ": " + where + ": '" + std::string(s.substr(0, 32)) + "' is not a number");
  return v;
}

std::string_view CatalogChomp(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

Result<json> DescribeCatalog(const json& args) {
  MR_ASSIGN_OR_RETURN(Catalog c, ListCatalog(args));
  return json{{"columns", OutputColumns(c)}, {"rows", c.rows()}, {"meta", c.meta}};
}

Result<std::unique_ptr<Source>> OpenCatalogSource(const json& node) {
  const json args = node.value("args", json::object());
  MR_ASSIGN_OR_RETURN(Catalog c, ListCatalog(args));
  if (node.at("columns") != json(OutputColumns(c)))
    return Status::InvalidArgument("a '" + args.value("layout", std::string()) + "' catalog has the columns " +
                                   json(OutputColumns(c)).dump() + ", not " + node.at("columns").dump());
  if (c.rows() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the dataset's lists give " + std::to_string(c.rows()) + " rows now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  return MakeCatalogSource(std::move(c), args.value("decode", false));
}

Result<std::unique_ptr<Source>> MakeCatalogSource(Catalog c, bool decode) {
  std::vector<std::shared_ptr<const RandomAccessFile>> files;
  for (size_t i = 0; i < c.record_files.size(); ++i) {
    if (i < c.record_opened.size() && c.record_opened[i]) {
      files.push_back(c.record_opened[i]);
      continue;
    }
    MR_ASSIGN_OR_RETURN(std::shared_ptr<const RandomAccessFile> file, FileSystem::Default()->OpenRead(c.record_files[i]));
    files.push_back(std::move(file));
  }
  return std::unique_ptr<Source>(new CatalogSource(std::move(c), std::move(files), decode));
}

}  // namespace mindrecord
