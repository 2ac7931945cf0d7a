#include "pipeline/nodes/clue_source.h"

#include <set>

#include "mindrecord/json_guard.h"
#include "mindrecord/utf8.h"
#include "pipeline/nodes/file_rows_source.h"
#include "pipeline/nodes/text_source.h"
#include "pipeline/strings.h"

namespace mindrecord {

namespace {

using json = nlohmann::json;

class ClueSource : public FileRowsSource {
 public:
  static Result<std::unique_ptr<Source>> Open(std::vector<std::string> files, std::vector<std::string> names,
                                              std::set<std::string> nested) {
    std::unique_ptr<ClueSource> s(new ClueSource(std::move(files), std::move(names), std::move(nested)));
    MR_RETURN_IF_ERROR(s->Scan(TextLineScanKey(false), TextLineScan(false)));
    return std::unique_ptr<Source>(std::move(s));
  }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    return ReadEach(ids, fn, [&](uint64_t id, std::vector<Tensor>* cols) { return Row(id, cols); });
  }

 private:
  ClueSource(std::vector<std::string> files, std::vector<std::string> names, std::set<std::string> nested)
      : FileRowsSource(std::move(files), "line", std::move(names)), nested_(std::move(nested)) {}

  Status Row(uint64_t id, std::vector<Tensor>* cols) const {
    MR_ASSIGN_OR_RETURN(std::string line, RowBytes(id));
    MR_RETURN_IF_ERROR(CheckJsonShape(line, Where(id)));
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Status::Corruption(Where(id) + ": not a JSON object");
    for (const auto& name : columns()) {
      const json* v = &j;
      if (nested_.count(name)) {
        auto t = j.find("target");
        if (t == j.end() || !t->is_object())
          return Status::Corruption(Where(id) + ": failed to find key: target (an object)");
        v = &*t;
      }
      auto it = v->find(name);
      if (it == v->end()) return Status::Corruption(Where(id) + ": failed to find key: " + name);
      MR_ASSIGN_OR_RETURN(Tensor t, Value(*it, name, id));
      cols->push_back(std::move(t));
    }
    return Status::OK();
  }

  Result<Tensor> Value(const json& v, const std::string& name, uint64_t id) const {
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (!IsUtf8(s)) return Status::Corruption(Where(id) + ", key '" + name + "': not UTF-8 text");
      return Tensor::FromString(TensorType::kString, s);
    }
    if (v.is_number_integer()) {
      const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= INT32_MAX
                                               : v.get<int64_t>() >= INT32_MIN && v.get<int64_t>() <= INT32_MAX;
      if (!fits) return Status::Corruption(Where(id) + ", key '" + name + "': " + v.dump() + " is outside int32");
      Tensor t = Tensor::Make(TensorType::kInt32, {});
      *t.mutable_data_as<int32_t>() = static_cast<int32_t>(v.get<int64_t>());
      return t;
    }
    if (v.is_number_float()) {
      Tensor t = Tensor::Make(TensorType::kFloat32, {});
      *t.mutable_data_as<float>() = static_cast<float>(v.get<double>());
      return t;
    }
    if (v.is_array()) {
      StringsBuilder b;
      for (const auto& e : v) {
        if (!e.is_string()) return Status::Corruption(Where(id) + ", key '" + name + "': an array of non-strings");
        if (!IsUtf8(e.get_ref<const std::string&>()))
          return Status::Corruption(Where(id) + ", key '" + name + "': not UTF-8 text");
        b.Add(e.get_ref<const std::string&>());
      }
      return b.Finish();
    }
    return Status::Corruption(Where(id) + ", key '" + name + "': a JSON " + v.type_name() +
                              " (a string, number or array of strings is read)");
  }

  std::set<std::string> nested_;
};

}  // namespace

Result<std::unique_ptr<Source>> OpenClueSource(const json& node) {
  const json args = node.value("args", json::object());
  MR_ASSIGN_OR_RETURN(auto files, SourceFiles(args, "clue"));
  const json& cols = node.at("columns");
  std::vector<std::string> names;
  for (const auto& c : cols) {
    if (!c.is_string()) return Status::InvalidArgument("a 'clue' source's columns are names");
    names.push_back(c.get<std::string>());
  }
  std::set<std::string> nested;
  for (const auto& n : args.value("nested", json::array())) {
    if (!n.is_string()) return Status::InvalidArgument("a 'clue' source's nested are column names");
    nested.insert(n.get<std::string>());
  }
  MR_ASSIGN_OR_RETURN(auto src, ClueSource::Open(files, std::move(names), std::move(nested)));
  if (src->num_rows() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the CLUE files hold " + std::to_string(src->num_rows()) + " lines now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  return src;
}

}  // namespace mindrecord
