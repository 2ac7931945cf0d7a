#include "pipeline/nodes/text_source.h"

#include <algorithm>
#include <cstring>
#include <list>
#include <mutex>

#include "mindrecord/file.h"
#include "mindrecord/limits.h"
#include "mindrecord/utf8.h"

namespace mindrecord {

namespace {

constexpr size_t kScanChunk = size_t{1} << 20;

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

class TextFileSource : public Source {
 public:
  static Result<std::unique_ptr<Source>> Open(const std::vector<std::string>& files) {
    std::unique_ptr<TextFileSource> s(new TextFileSource());
    s->files_ = files;
    s->first_.push_back(0);
    for (const auto& path : files) {
      MR_ASSIGN_OR_RETURN(auto f, FileSystem::Default()->OpenRead(path));
      MR_RETURN_IF_ERROR(ScanLines(*f, [&](uint64_t start, uint64_t len) -> Status {
        s->start_.push_back(start);
        // Lines longer than a row may be are kept as such (a row error when read).
        s->length_.push_back(static_cast<uint32_t>(std::min<uint64_t>(len, UINT32_MAX)));
        return Status::OK();
      }));
      s->first_.push_back(s->start_.size());
    }
    return std::unique_ptr<Source>(std::move(s));
  }

  const std::vector<std::string>& columns() const override { return names_; }
  uint64_t num_rows() const override { return start_.size(); }
  DatasetLayout Layout() const override {
    DatasetLayout l;
    for (size_t f = 0; f < files_.size(); ++f) l.shard_rows.push_back(first_[f + 1] - first_[f]);
    return l;
  }
  std::string Where(uint64_t id) const override {
    const size_t f = FileOf(id);
    return "line at byte " + std::to_string(start_[id]) + " of '" + files_[f] + "' (row " + std::to_string(id) + ")";
  }
  std::vector<std::string> files() const override { return files_; }

  Status Read(const std::vector<uint64_t>& ids, const SourceRowFn& fn) const override {
    for (size_t i = 0; i < ids.size(); ++i) {
      const uint64_t id = ids[i];
      if (id >= start_.size()) return Status::Internal("TextFileSource: row " + std::to_string(id) + " out of range");
      Status st;
      std::vector<Tensor> cols;
      const uint64_t len = length_[id];
      if (len > kMaxDecompressedRowBytes) {
        st = Status::InvalidArgument(Where(id) + ": a line of " + std::to_string(len) +
                                     " bytes or more, longer than a row may be");
      } else {
        auto file = FileFor(FileOf(id));
        if (!file.ok()) return file.status();
        std::string line(len, '\0');
        st = (*file)->ReadAt(start_[id], len, line.data());
        if (st.ok() && !IsUtf8(line)) st = Status::Corruption(Where(id) + ": the line is not UTF-8 text");
        if (st.ok()) cols.push_back(Tensor::FromString(TensorType::kString, std::move(line)));
      }
      MR_RETURN_IF_ERROR(fn(i, st, std::move(cols), len));
    }
    return Status::OK();
  }

 private:
  TextFileSource() = default;
  size_t FileOf(uint64_t id) const {
    return static_cast<size_t>(std::upper_bound(first_.begin(), first_.end(), id) - first_.begin()) - 1;
  }
  // The open file `f`, from a small cache of open files (opened again when
  // it was closed to make room: the file descriptors stay few).
  Result<std::shared_ptr<RandomAccessFile>> FileFor(size_t f) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = open_.begin(); it != open_.end(); ++it) {
      if (it->first == f) {
        open_.splice(open_.begin(), open_, it);
        return open_.front().second;
      }
    }
    MR_ASSIGN_OR_RETURN(auto file, FileSystem::Default()->OpenRead(files_[f]));
    open_.emplace_front(f, std::shared_ptr<RandomAccessFile>(std::move(file)));
    if (open_.size() > kOpenFiles) open_.pop_back();
    return open_.front().second;
  }

  static constexpr size_t kOpenFiles = 16;
  std::vector<std::string> names_{"text"};
  std::vector<std::string> files_;
  std::vector<uint64_t> first_;    // first row of each file, then the total
  std::vector<uint64_t> start_;    // per row: byte offset of the line
  std::vector<uint32_t> length_;   // per row: its length (capped)
  mutable std::mutex mu_;
  mutable std::list<std::pair<size_t, std::shared_ptr<RandomAccessFile>>> open_;  // most recent first
};

}  // namespace

Result<std::vector<uint64_t>> CountTextFileLines(const std::vector<std::string>& files) {
  std::vector<uint64_t> out;
  for (const auto& path : files) {
    MR_ASSIGN_OR_RETURN(auto f, FileSystem::Default()->OpenRead(path));
    uint64_t n = 0;
    MR_RETURN_IF_ERROR(ScanLines(*f, [&](uint64_t, uint64_t) {
      ++n;
      return Status::OK();
    }));
    out.push_back(n);
  }
  return out;
}

Result<std::unique_ptr<Source>> OpenTextFileSource(const nlohmann::json& node) {
  const auto& args = node.value("args", nlohmann::json::object());
  if (!args.contains("files") || !args["files"].is_array() || args["files"].empty()) {
    return Status::InvalidArgument("a 'textfile' source needs args.files, a non-empty list of file paths");
  }
  std::vector<std::string> files;
  for (const auto& f : args["files"]) {
    if (!f.is_string() || f.get<std::string>().empty()) {
      return Status::InvalidArgument("a 'textfile' source's args.files must hold file paths");
    }
    files.push_back(f.get<std::string>());
  }
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
