#include "pipeline/nodes/file_rows_source.h"

#include <algorithm>

#include "mindrecord/limits.h"

namespace mindrecord {

Result<std::vector<std::string>> SourceFiles(const nlohmann::json& args, const std::string& kind) {
  const auto bad = [&](const std::string& m) { return Status::InvalidArgument("a '" + kind + "' source: " + m); };
  if (!args.contains("files") || !args["files"].is_array() || args["files"].empty()) {
    return bad("args.files must be a non-empty list of file paths");
  }
  std::vector<std::string> files;
  for (const auto& f : args["files"]) {
    if (!f.is_string() || f.get<std::string>().empty()) return bad("args.files must hold file paths");
    files.push_back(f.get<std::string>());
  }
  return files;
}

Status FileRowsSource::Scan(const std::string& key, const ScanFn& scan) {
  MR_ASSIGN_OR_RETURN(rows_, ScanSourceFiles(files_, key, scan));
  for (const auto& rows : rows_) first_.push_back(first_.back() + rows->start.size());
  return Status::OK();
}

DatasetLayout FileRowsSource::Layout() const {
  DatasetLayout l;
  for (size_t f = 0; f + 1 < first_.size(); ++f) l.shard_rows.push_back(first_[f + 1] - first_[f]);
  return l;
}

std::string FileRowsSource::Where(uint64_t id) const {
  const size_t f = FileOf(id);
  return what_ + " at byte " + std::to_string(rows_[f]->start[id - first_[f]]) + " of '" + files_[f] + "'" +
         (rows_[f]->inflate ? " decompressed" : "") + " (row " + std::to_string(id) + ")";
}

Result<std::string> FileRowsSource::RowBytes(uint64_t id) const {
  if (id >= num_rows()) {
    return Status::Internal("FileRowsSource: row " + std::to_string(id) + " of " + std::to_string(num_rows()) + " out of range");
  }
  const size_t f = FileOf(id);
  const uint64_t len = rows_[f]->length[id - first_[f]];
  if (len > kMaxDecompressedRowBytes) {
    return Status::InvalidArgument(Where(id) + ": a " + what_ + " of " + std::to_string(len) +
                                   " bytes or more, longer than a row may be");
  }
  MR_ASSIGN_OR_RETURN(auto file, Open(f));
  std::string bytes(len, '\0');
  MR_RETURN_IF_ERROR(file->ReadAt(rows_[f]->start[id - first_[f]], len, bytes.data()));
  return bytes;
}

Status FileRowsSource::ReadEach(const std::vector<uint64_t>& ids, const SourceRowFn& fn, const MakeRow& make) const {
  for (size_t i = 0; i < ids.size(); ++i) {
    std::vector<Tensor> cols;
    Status st = make(ids[i], &cols);
    if (st.code() == StatusCode::kInternal) return st;
    if (!st.ok()) cols.clear();
    MR_RETURN_IF_ERROR(fn(i, st, std::move(cols), RowLength(ids[i])));
  }
  return Status::OK();
}

size_t FileRowsSource::FileOf(uint64_t id) const {
  return static_cast<size_t>(std::upper_bound(first_.begin(), first_.end(), id) - first_.begin()) - 1;
}

Result<std::shared_ptr<RandomAccessFile>> FileRowsSource::Open(size_t f) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = open_.begin(); it != open_.end(); ++it) {
    if (it->first == f) {
      open_.splice(open_.begin(), open_, it);
      return open_.front().second;
    }
  }
  MR_ASSIGN_OR_RETURN(auto raw, FileSystem::Default()->OpenRead(files_[f]));
  std::shared_ptr<RandomAccessFile> file(std::move(raw));
  if (rows_[f]->inflate) file = std::make_shared<InflatedFile>(std::move(file), rows_[f]->inflate);
  open_.emplace_front(f, std::move(file));
  if (open_.size() > kOpenFiles) open_.pop_back();
  return open_.front().second;
}

}  // namespace mindrecord
