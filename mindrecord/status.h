// Status and Result<T>: the error model of the core. No exceptions cross the
// core's API; the CLI and the Python binding translate Status at their edges.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace mindrecord {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,  // bad argument or input that does not match the schema
  kNotFound = 2,         // a file, field or row that does not exist
  kAlreadyExists = 3,    // output exists and overwrite is off
  kIOError = 4,          // the OS refused a read, write, rename or fsync
  kCorruption = 5,       // bytes on disk that do not parse or do not agree
  kNotSupported = 6,     // a version or feature this build cannot handle
  kInternal = 7,         // a broken invariant (a bug)
  kCancelled = 8,        // stopped by the caller
};

const char* StatusCodeName(StatusCode code);

// What an error carries besides its message for the edge that reports it
// (the Python binding keeps the exception a callable raised, to chain it).
// Immutable once made; released with the last Status that holds it, on
// whichever thread that is.
class StatusDetail {
 public:
  virtual ~StatusDetail() = default;
};

// Thread safety: a Status is a value; distinct objects may be used concurrently.
// An OK status is a null pointer: making, passing and dropping one (every row
// of a read goes through several) costs no more than a pointer; an error
// holds its code, message and detail on the heap.
class [[nodiscard]] Status {
 public:
  Status() = default;
  // A code of kOk makes an OK status (the message is dropped).
  Status(StatusCode code, std::string message)
      : state_(code == StatusCode::kOk ? nullptr : new State{code, std::move(message), nullptr}) {}
  Status(const Status& o) : state_(o.state_ ? new State(*o.state_) : nullptr) {}
  Status(Status&& o) noexcept : state_(o.state_) { o.state_ = nullptr; }
  Status& operator=(const Status& o) {
    if (this != &o) {
      State* copy = o.state_ ? new State(*o.state_) : nullptr;
      delete state_;
      state_ = copy;
    }
    return *this;
  }
  Status& operator=(Status&& o) noexcept {
    if (this != &o) {
      delete state_;
      state_ = o.state_;
      o.state_ = nullptr;
    }
    return *this;
  }
  ~Status() { delete state_; }

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;  // empty when OK
  // "Corruption: <message>"
  std::string ToString() const;
  // Returns a copy with `prefix + ": "` put before the message (the detail kept).
  Status WithContext(const std::string& prefix) const;
  // Returns a copy that carries `detail`.
  Status WithDetail(std::shared_ptr<const StatusDetail> detail) const;
  // The detail this error carries, or null.
  const StatusDetail* detail() const { return state_ ? state_->detail.get() : nullptr; }

 private:
  struct State {
    StatusCode code;
    std::string message;
    std::shared_ptr<const StatusDetail> detail;
  };
  State* state_ = nullptr;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::get<T>(std::move(v_)); }

 private:
  std::variant<T, Status> v_;
};

#define MR_CONCAT_INNER(a, b) a##b
#define MR_CONCAT(a, b) MR_CONCAT_INNER(a, b)

#define MR_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::mindrecord::Status _mr_st = (expr);        \
    if (!_mr_st.ok()) return _mr_st;             \
  } while (0)

#define MR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#define MR_ASSIGN_OR_RETURN(lhs, expr) MR_ASSIGN_OR_RETURN_IMPL(MR_CONCAT(_mr_res_, __LINE__), lhs, expr)

}  // namespace mindrecord
