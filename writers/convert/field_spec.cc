// Field specs given on the command line ("name:type[:shape],...") for the
// schema-less sources (tfrecord, csv), and field-name sanitizing.
#include <cctype>
#include <string>

#include "writers/convert/sources.h"

namespace mindrecord::convert {

std::string SanitizeFieldName(const std::string& name) {
  if (name.empty()) return std::string(1, '_');
  std::string out = name;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  return out;
}

namespace {

// "[-1,4]" -> {-1, 4}.
Result<std::vector<int64_t>> ParseShape(const std::string& text, const std::string& entry) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    return Status::InvalidArgument("--fields entry '" + entry + "': shape must look like [-1] or [-1,4]");
  std::vector<int64_t> dims;
  std::string body = text.substr(1, text.size() - 2);
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t end = body.find(',', pos);
    if (end == std::string::npos) end = body.size();
    std::string d = body.substr(pos, end - pos);
    char* stop = nullptr;
    long long v = std::strtoll(d.c_str(), &stop, 10);
    if (d.empty() || *stop != '\0')
      return Status::InvalidArgument("--fields entry '" + entry + "': bad shape dimension '" + d + "'");
    dims.push_back(v);
    pos = end + 1;
  }
  return dims;
}

}  // namespace

std::string ListLengthsField(const std::string& name) { return name + "_lengths"; }

std::vector<Field> SpecFields(const std::vector<FieldSpec>& specs) {
  std::vector<Field> fields;
  for (const FieldSpec& s : specs) {
    fields.push_back(s.field);
    if (s.byte_list) fields.push_back({ListLengthsField(s.field.name), DataType::kInt64, true, {-1}});
  }
  return fields;
}

Result<std::vector<FieldSpec>> ParseFieldSpecs(const std::string& text) {
  std::vector<FieldSpec> specs;
  // Split on commas outside brackets.
  std::vector<std::string> entries;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '[') depth++;
    if (c == ']') depth--;
    if (c == ',' && depth == 0) {
      entries.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) entries.push_back(cur);
  for (const std::string& e : entries) {
    // The source name may hold ':' only before the type, so split from the right.
    size_t shape_pos = e.find(":[");
    std::string head = shape_pos == std::string::npos ? e : e.substr(0, shape_pos);
    size_t colon = head.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return Status::InvalidArgument("--fields entry '" + e + "' must be name:type or name:type:[shape]");
    FieldSpec spec;
    spec.source_name = head.substr(0, colon);
    auto type = ParseDataType(head.substr(colon + 1));
    if (!type.ok()) return type.status().WithContext("--fields entry '" + e + "'");
    spec.field.name = SanitizeFieldName(spec.source_name);
    spec.field.type = *type;
    if (shape_pos != std::string::npos) {
      MR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseShape(e.substr(shape_pos + 1), e));
      if (*type == DataType::kBytes || *type == DataType::kString) {
        // A list of byte strings: only [-1] makes sense.
        if (shape != std::vector<int64_t>{-1})
          return Status::InvalidArgument("--fields entry '" + e + "': a bytes or string list takes the shape [-1]");
        spec.byte_list = true;
      } else {
        spec.field.shape = std::move(shape);
        spec.field.has_shape = true;
      }
    }
    specs.push_back(std::move(spec));
  }
  if (specs.empty()) return Status::InvalidArgument("--fields is empty");
  // Schema::Make checks names, duplicates (a list's lengths field included) and shapes.
  auto schema = Schema::Make(SpecFields(specs));
  if (!schema.ok()) return schema.status().WithContext("--fields");
  return specs;
}

}  // namespace mindrecord::convert
