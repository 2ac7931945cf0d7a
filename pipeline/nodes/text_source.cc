#include "pipeline/nodes/text_source.h"

#include <algorithm>
#include <cstring>

#include "mindrecord/utf8.h"
#include "pipeline/nodes/file_rows_source.h"

namespace mindrecord {

namespace {


// Calls fn(start, length) for each line of `file` (each non-empty one unless
// `empty`); a last line without '\n' is a line, an end after '\n' is none.
template <typename Fn>
Status ScanLines(const RandomAccessFile& file, bool empty, Fn&& fn) {
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
      if (pos > line_start || empty) MR_RETURN_IF_ERROR(fn(line_start, pos - line_start));
      line_start = pos + 1;
      p = nl + 1;
    }
    at += n;
  }
  if (size > line_start) MR_RETURN_IF_ERROR(fn(line_start, size - line_start));
  return Status::OK();
}

// The text grammar's rows of a file, for ScanRows (row_scan_cache.h).
const char* ScanKey(bool empty) { return empty ? "text+empty" : "text"; }
ScanFn ScanTextRows(bool empty) {
  return [empty](const RandomAccessFile& f, FileRows* rows) {
    return ScanLines(f, empty, [&](uint64_t start, uint64_t len) {
      return rows->Add(start, len) ? Status::OK() : rows->Full(f.path(), "lines");
    });
  };
}

class TextFileSource : public FileRowsSource {
 public:
  static Result<std::unique_ptr<Source>> Open(const std::vector<std::string>& files, bool empty) {
    std::unique_ptr<TextFileSource> s(new TextFileSource(files));
    MR_RETURN_IF_ERROR(s->Scan(ScanKey(empty), ScanTextRows(empty)));
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

const char* TextLineScanKey(bool empty_lines) { return ScanKey(empty_lines); }
ScanFn TextLineScan(bool empty_lines) { return ScanTextRows(empty_lines); }

Result<std::vector<uint64_t>> CountTextFileLines(const std::vector<std::string>& files, bool empty_lines) {
  MR_ASSIGN_OR_RETURN(auto scans, ScanSourceFiles(files, ScanKey(empty_lines), ScanTextRows(empty_lines)));
  std::vector<uint64_t> out;
  for (const auto& rows : scans) out.push_back(rows->start.size());
  return out;
}

Result<std::unique_ptr<Source>> OpenTextFileSource(const nlohmann::json& node) {
  const nlohmann::json args = node.value("args", nlohmann::json::object());
  MR_ASSIGN_OR_RETURN(auto files, SourceFiles(args, "textfile"));
  if (node.at("columns") != nlohmann::json::array({"text"})) {
    return Status::InvalidArgument("a 'textfile' source has one column, 'text'");
  }
  const nlohmann::json empty = args.value("empty_lines", nlohmann::json(false));
  if (!empty.is_boolean()) return Status::InvalidArgument("a 'textfile' source's empty_lines must be a bool");
  MR_ASSIGN_OR_RETURN(auto src, TextFileSource::Open(files, empty.get<bool>()));
  if (src->num_rows() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the text files hold " + std::to_string(src->num_rows()) + " lines now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  return src;
}

}  // namespace mindrecord
