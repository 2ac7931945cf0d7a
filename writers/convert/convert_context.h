// Shared state of one Convert() call: the options, the list of skipped
// inputs and the notes for the user. Internal to writers/convert.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "writers/convert/converter.h"

namespace mindrecord::convert {

// Thread safety: BadInput(), Note(), MarkSkipped(), ForEachSkipped() and
// WriteSkipped() may be called from any thread; the other accessors are for
// the calling thread once the workers have stopped.
class ConvertContext {
 public:
  explicit ConvertContext(ConvertOptions options) : options_(std::move(options)) {}

  const ConvertOptions& options() const { return options_; }

  // Skipped inputs kept in memory (skipped(), the report); those after them
  // go to a temporary file, so a source of millions of bad items (a few
  // bytes each in a COCO or CSV file) costs disk, not memory.
  static constexpr size_t kKeptSkipped = 10000;

  ~ConvertContext();

  // Reports that `input` (a file, or "FILE record N") cannot be converted.
  // With OnError::kFail returns `why` prefixed with the input name; with
  // kSkip records "input: reason" and returns OK so the caller goes on
  // (IOError when it cannot be recorded).
  Status BadInput(const std::string& input, const Status& why);

  // How many inputs had been skipped at some point, to list those between
  // two points (a distributed convert's shards).
  struct SkippedMark {
    uint64_t count = 0;
    uint64_t spilled_bytes = 0;
  };
  SkippedMark MarkSkipped();
  // Calls fn(input, "input: reason") for each input skipped between `from`
  // and `to`, in order; stops at fn's first error. fn must not call BadInput.
  Status ForEachSkipped(const SkippedMark& from, const SkippedMark& to,
                        const std::function<Status(const std::string&, const std::string&)>& fn);
  // Writes every "input: reason" line, in order, to `path`.
  Status WriteSkipped(const std::string& path);
  // A line for the user (class map, inferred schema). Lines past the
  // limit are counted, not kept.
  void Note(std::string line) {
    std::lock_guard<std::mutex> lock(mu_);
    if (notes_.size() < note_limit_) {
      notes_.push_back(std::move(line));
    } else {
      ++dropped_notes_;
    }
  }
  // Keeps at most `n` notes (default: all). A reader that builds rows
  // through the converters every epoch sets it, so notes cannot pile up.
  void LimitNotes(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    note_limit_ = n;
  }

  // The first kKeptSkipped "input: reason" lines, and their inputs.
  const std::vector<std::string>& skipped() const { return skipped_; }
  const std::vector<std::string>& skipped_inputs() const { return skipped_inputs_; }
  // Every skipped input, kept or not.
  uint64_t skipped_count() const { return skipped_count_; }
  const std::vector<std::string>& notes() const { return notes_; }
  uint64_t dropped_notes() const { return dropped_notes_; }

 private:
  const ConvertOptions options_;
  std::mutex mu_;
  std::vector<std::string> skipped_;
  std::vector<std::string> skipped_inputs_;
  uint64_t skipped_count_ = 0;
  std::FILE* spill_ = nullptr;  // the inputs after the kept ones: (u64 length, input, u64 length, line) each
  uint64_t spilled_bytes_ = 0;
  std::vector<std::string> notes_;
  size_t note_limit_ = static_cast<size_t>(-1);
  uint64_t dropped_notes_ = 0;
};

}  // namespace mindrecord::convert
