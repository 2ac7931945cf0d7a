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

const std::string& Status::message() const {
  static const std::string kNone;
  return state_ ? state_->message : kNone;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(state_->code)) + ": " + state_->message;
}

Status Status::WithContext(const std::string& prefix) const {
  if (ok()) return *this;
  Status s(state_->code, prefix + ": " + state_->message);
  s.state_->detail = state_->detail;
  return s;
}

Status Status::WithDetail(std::shared_ptr<const StatusDetail> detail) const {
  Status s = *this;
  if (s.state_) s.state_->detail = std::move(detail);
  return s;
}

}  // namespace mindrecord
