#include "pipeline/nodes/text_source.h"

#include <algorithm>
#include <cstring>

#include "mindrecord/utf8.h"
#include "pipeline/nodes/file_rows_source.h"

namespace mindrecord {

namespace {


// Calls fn(start, length) for each non-empty line of `file`.
template <typename Fn>
Status ScanLines(const RandomAccessFile& file, Fn&& fn) {
  std::string buf(kScanChunk, '\0');
  const uint64_t size = file.size();
  uint64_t line_start = 0;
  for (uint64_t at = 0; at < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kScanChunk, size - at));
    MR_RETURN_IF_ERROR(file.ReadAt(at, n, buf.data()));
    const char* p = buf.data();
    const char* end = p + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (nl == nullptr) break;
      const uint64_t pos = at + static_cast<uint64_t>(nl - buf.data());
      if (pos > line_start) MR_RETURN_IF_ERROR(fn(line_start, pos - line_start));
      line_start = pos + 1;
      p = nl + 1;
    }
    at += n;
  }
  if (size > line_start) MR_RETURN_IF_ERROR(fn(line_start, size - line_start));
  return Status::OK();
}

// The text grammar's rows of a file, for ScanRows (row_scan_cache.h).
constexpr const char* kScanKey = "text";
Status ScanTextRows(const RandomAccessFile& f, FileRows* rows) {
  return ScanLines(f, [&](uint64_t start, uint64_t len) {
    return rows->Add(start, len) ? Status::OK() : rows->Full(f.path(), "lines");
  });
}

class TextFileSource : public FileRowsSource {
 public:
  static Result<std::unique_ptr<Source>> Open(const std::vector<std::string>& files) {
    std::unique_ptr<TextFileSource> s(new TextFileSource(files));
    MR_RETURN_IF_ERROR(s->Scan(kScanKey, ScanTextRows));
    return std::unique_ptr<Source>(std::move(s));
  }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    for (size_t i = 0; i < ids.size(); ++i) {
      std::vector<Tensor> cols;
      Result<std::string> line = RowBytes(ids[i]);
      Status st = line.status();
      if (st.code() == StatusCode::kInternal) return st;
      if (st.ok() && !IsUtf8(*line)) st = Status::Corruption(Where(ids[i]) + ": the line is not UTF-8 text");
      if (st.ok()) cols.push_back(Tensor::FromString(TensorType::kString, std::move(line).value()));
      MR_RETURN_IF_ERROR(fn(i, st, std::move(cols), RowLength(ids[i])));
    }
    return Status::OK();
  }

 private:
  explicit TextFileSource(std::vector<std::string> files) : FileRowsSource(std::move(files), "line", {"text"}) {}
};

}  // namespace

Result<std::vector<uint64_t>> CountTextFileLines(const std::vector<std::string>& files) {
  MR_ASSIGN_OR_RETURN(auto scans, ScanSourceFiles(files, kScanKey, ScanTextRows));
  std::vector<uint64_t> out;
  for (const auto& rows : scans) out.push_back(rows->start.size());
  return out;
}

Result<std::unique_ptr<Source>> OpenTextFileSource(const nlohmann::json& node) {
  MR_ASSIGN_OR_RETURN(auto files, SourceFiles(node.value("args", nlohmann::json::object()), "textfile"));
  if (node.at("columns") != nlohmann::json::array({"text"})) {
    return Status::InvalidArgument("a 'textfile' source has one column, 'text'");
  }
  MR_ASSIGN_OR_RETURN(auto src, TextFileSource::Open(files));
  if (src->num_rows() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the text files hold " + std::to_string(src->num_rows()) + " lines now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  return src;
}

}  // namespace mindrecord
