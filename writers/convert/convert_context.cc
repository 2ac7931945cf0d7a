#include "writers/convert/convert_context.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mindrecord::convert {
namespace {

Status SpillError(const char* what) {
  return Status::IOError(std::string(what) + " the temporary file of skipped inputs: " + std::strerror(errno));
}

}  // namespace

ConvertContext::~ConvertContext() {
  if (spill_) std::fclose(spill_);
}

Status ConvertContext::BadInput(const std::string& input, const Status& why) {
  Status named = why.WithContext(input);
  if (options_.on_error == OnError::kFail) return named;
  std::string line = input + ": " + why.message();
  std::lock_guard<std::mutex> lock(mu_);
  if (skipped_.size() < kKeptSkipped) {
    skipped_.push_back(std::move(line));
    skipped_inputs_.push_back(input);
  } else {
    if (!spill_) {
      if (!(spill_ = std::tmpfile())) return SpillError("cannot make");
      std::setvbuf(spill_, nullptr, _IOFBF, 1 << 20);
    }
    for (const std::string* s : {&input, static_cast<const std::string*>(&line)}) {
      const uint64_t n = s->size();
      if (std::fwrite(&n, sizeof(n), 1, spill_) != 1 || std::fwrite(s->data(), 1, s->size(), spill_) != s->size())
        return SpillError("cannot write to");
      spilled_bytes_ += sizeof(n) + n;
    }
  }
  ++skipped_count_;
  return Status::OK();
}

ConvertContext::SkippedMark ConvertContext::MarkSkipped() {
  std::lock_guard<std::mutex> lock(mu_);
  return {skipped_count_, spilled_bytes_};
}

Status ConvertContext::ForEachSkipped(const SkippedMark& from, const SkippedMark& to,
                                      const std::function<Status(const std::string&, const std::string&)>& fn) {
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t i = from.count; i < to.count && i < skipped_.size(); ++i) MR_RETURN_IF_ERROR(fn(skipped_inputs_[i], skipped_[i]));
  if (to.spilled_bytes <= from.spilled_bytes) return Status::OK();
  // Read back through the stream's buffer, then left at its end for more.
  if (std::fseek(spill_, static_cast<long>(from.spilled_bytes), SEEK_SET) != 0) return SpillError("cannot read back");
  std::string s[2];
  Status st;
  for (uint64_t at = from.spilled_bytes; at < to.spilled_bytes && st.ok();) {
    for (std::string& field : s) {
      uint64_t n = 0;
      if (to.spilled_bytes - at < sizeof(n) || std::fread(&n, sizeof(n), 1, spill_) != 1 ||
          n > to.spilled_bytes - at - sizeof(n)) {
        st = SpillError("cannot read back");
        break;
      }
      field.resize(n);
      if (n > 0 && std::fread(field.data(), 1, n, spill_) != n) {
        st = SpillError("cannot read back");
        break;
      }
      at += sizeof(n) + n;
    }
    if (st.ok()) st = fn(s[0], s[1]);
  }
  if (std::fseek(spill_, 0, SEEK_END) != 0 && st.ok()) st = SpillError("cannot write to");
  return st;
}

Status ConvertContext::WriteSkipped(const std::string& path) {
  std::ofstream f(path, std::ios::trunc | std::ios::binary);
  Status st = ForEachSkipped({}, MarkSkipped(), [&](const std::string&, const std::string& line) {
    f << line << '\n';
    return f ? Status::OK() : Status::IOError(path + ": cannot write the list of skipped inputs");
  });
  f.close();
  if (st.ok() && !f) st = Status::IOError(path + ": cannot write the list of skipped inputs");
  return st;
}

}  // namespace mindrecord::convert
