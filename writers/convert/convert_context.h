// Shared state of one Convert() call: the options, the list of skipped
// inputs and the notes for the user. Internal to writers/convert.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "mindrecord/status.h"
#include "writers/convert/converter.h"

namespace mindrecord::convert {

// Thread safety: BadInput() and Note() may be called from any thread; the
// accessors are for the calling thread once the workers have stopped.
class ConvertContext {
 public:
  explicit ConvertContext(ConvertOptions options) : options_(std::move(options)) {}

  const ConvertOptions& options() const { return options_; }

  // Reports that `input` (a file, or "FILE record N") cannot be converted.
  // With OnError::kFail returns `why` prefixed with the input name; with
  // kSkip records "input: reason" and returns OK so the caller goes on.
  Status BadInput(const std::string& input, const Status& why) {
    Status named = why.WithContext(input);
    if (options_.on_error == OnError::kFail) return named;
    std::lock_guard<std::mutex> lock(mu_);
    skipped_.push_back(input + ": " + why.message());
    skipped_inputs_.push_back(input);
    return Status::OK();
  }
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

  const std::vector<std::string>& skipped() const { return skipped_; }
  const std::vector<std::string>& skipped_inputs() const { return skipped_inputs_; }
  const std::vector<std::string>& notes() const { return notes_; }
  uint64_t dropped_notes() const { return dropped_notes_; }

 private:
  const ConvertOptions options_;
  std::mutex mu_;
  std::vector<std::string> skipped_;
  std::vector<std::string> skipped_inputs_;
  std::vector<std::string> notes_;
  size_t note_limit_ = static_cast<size_t>(-1);
  uint64_t dropped_notes_ = 0;
};

}  // namespace mindrecord::convert
