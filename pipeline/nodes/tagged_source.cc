#include "pipeline/nodes/tagged_source.h"

#include <algorithm>

#include "mindrecord/utf8.h"
#include "pipeline/nodes/file_rows_source.h"
#include "pipeline/strings.h"

namespace mindrecord {

namespace {

// The sentences of a file (blank-line separated runs of lines), for ScanRows.
constexpr const char* kScanKey = "tagged";
Status ScanSentences(const RandomAccessFile& file, FileRows* rows) {
  std::string buf(kScanChunk, '\0');
  const uint64_t size = file.size();
  uint64_t line_start = 0, sent_start = 0, sent_end = 0;
  bool line_text = false, in_sentence = false;
  auto end_line = [&](uint64_t end) -> Status {
    if (line_text) {
      if (!in_sentence) sent_start = line_start;
      in_sentence = true;
      sent_end = end;
    } else if (in_sentence) {
      in_sentence = false;
      if (!rows->Add(sent_start, sent_end - sent_start)) return rows->Full(file.path(), "sentences");
    }
    line_start = end + 1;
    line_text = false;
    return Status::OK();
  };
  for (uint64_t at = 0; at < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kScanChunk, size - at));
    MR_RETURN_IF_ERROR(file.ReadAt(at, n, buf.data()));
    for (size_t i = 0; i < n; ++i) {
      const char c = buf[i];
      if (c == '\n') {
        MR_RETURN_IF_ERROR(end_line(at + i));
      } else if (c != ' ' && c != '\r') {
        line_text = true;
      }
    }
    at += n;
  }
  if (line_start < size) MR_RETURN_IF_ERROR(end_line(size));
  if (in_sentence && !rows->Add(sent_start, sent_end - sent_start)) return rows->Full(file.path(), "sentences");
  return Status::OK();
}

class TaggedSource : public FileRowsSource {
 public:
  static Result<std::unique_ptr<Source>> Open(std::vector<std::string> files, std::vector<std::string> names,
                                              char delim) {
    std::unique_ptr<TaggedSource> s(new TaggedSource(std::move(files), std::move(names), delim));
    MR_RETURN_IF_ERROR(s->Scan(kScanKey, ScanSentences));
    return std::unique_ptr<Source>(std::move(s));
  }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    return ReadEach(ids, fn, [&](uint64_t id, std::vector<Tensor>* cols) { return Row(id, cols); });
  }

 private:
  TaggedSource(std::vector<std::string> files, std::vector<std::string> names, char delim)
      : FileRowsSource(std::move(files), "sentence", std::move(names)), delim_(delim) {}

  Status Row(uint64_t id, std::vector<Tensor>* cols) const {
    MR_ASSIGN_OR_RETURN(std::string text, RowBytes(id));
    StringsBuilder fields[3];
    std::string_view rest(text);
    for (size_t line_no = 1; !rest.empty(); ++line_no) {
      const size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
      if (line.empty()) continue;
      std::string_view parts[3];
      size_t got = 0, pos = 0;
      for (; got < 3; ++got) {
        const size_t cut = line.find(delim_, pos);
        parts[got] = line.substr(pos, cut == std::string_view::npos ? std::string_view::npos : cut - pos);
        if (cut == std::string_view::npos) {
          ++got;
          break;
        }
        pos = cut + 1;
      }
      if (got < 3)
        return Status::Corruption(Where(id) + ", line " + std::to_string(line_no) + ": " + std::to_string(got) +
                                  " field(s), a token needs 3 (" + (delim_ == '\t' ? "tab" : "space") + "-separated)");
      for (size_t c = 0; c < 3; ++c) {
        if (!IsUtf8(parts[c]))
          return Status::Corruption(Where(id) + ", line " + std::to_string(line_no) + ": not UTF-8 text");
        fields[c].Add(parts[c]);
      }
    }
    for (auto& f : fields) cols->push_back(f.Finish());
    return Status::OK();
  }

  char delim_;
};

}  // namespace

Result<std::vector<uint64_t>> CountTaggedSentences(const std::vector<std::string>& files) {
  MR_ASSIGN_OR_RETURN(auto scans, ScanSourceFiles(files, kScanKey, ScanSentences));
  std::vector<uint64_t> out;
  for (const auto& rows : scans) out.push_back(rows->start.size());
  return out;
}

Result<std::unique_ptr<Source>> OpenTaggedSource(const nlohmann::json& node) {
  const nlohmann::json args = node.value("args", nlohmann::json::object());
  MR_ASSIGN_OR_RETURN(auto files, SourceFiles(args, "tagged"));
  const nlohmann::json d = args.value("delimiter", nlohmann::json());
  if (d != " " && d != "\t") return Status::InvalidArgument("a 'tagged' source's delimiter must be ' ' or '\\t'");
  const nlohmann::json& cols = node.at("columns");
  if (!cols.is_array() || cols.size() != 3 || !std::all_of(cols.begin(), cols.end(), [](const auto& c) {
        return c.is_string();
      }))
    return Status::InvalidArgument("a 'tagged' source has three columns (names)");
  MR_ASSIGN_OR_RETURN(auto src, TaggedSource::Open(files, cols.get<std::vector<std::string>>(),
                                                   d.get<std::string>()[0]));
  if (src->num_rows() != node.at("rows").get<uint64_t>()) {
    return Status::Corruption("the files hold " + std::to_string(src->num_rows()) + " sentences now, " +
                              node.at("rows").dump() + " when the dataset was made (a file changed)");
  }
  return src;
}

}  // namespace mindrecord
