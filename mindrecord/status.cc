#include "mindrecord/status.h"

namespace mindrecord {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "Invalid argument";
    case StatusCode::kNotFound: return "Not found";
    case StatusCode::kAlreadyExists: return "Already exists";
    case StatusCode::kIOError: return "I/O error";
    case StatusCode::kCorruption: return "Corruption";
    case StatusCode::kNotSupported: return "Not supported";
    case StatusCode::kInternal: return "Internal error";
    case StatusCode::kCancelled: return "Cancelled";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + ": " + message_;
}

Status Status::WithContext(const std::string& prefix) const {
  if (ok()) return *this;
  Status s(code_, prefix + ": " + message_);
  s.detail_ = detail_;
  return s;
}

Status Status::WithDetail(std::shared_ptr<const StatusDetail> detail) const {
  Status s = *this;
  s.detail_ = std::move(detail);
  return s;
}

}  // namespace mindrecord
