#include "mindrecord/window_stage.h"

#include <climits>
#include <cstring>

#include <algorithm>
#include <atomic>

namespace mindrecord {
namespace {

std::atomic<uint64_t> g_buffer_bytes{0};  // window buffers of every stage in the process

}  // namespace

// Walks `pieces` as one run of bytes.
class WindowStage::Cursor {
 public:
  explicit Cursor(const std::vector<std::string_view>& pieces) : p_(pieces) { SkipEmpty(); }

  // How many pieces the next `n` bytes span, counting no further than `cap`.
  size_t CountPieces(uint64_t n, size_t cap) const {
    size_t count = 0;
    size_t i = i_;
    uint64_t at = at_;
    while (n > 0 && i < p_.size() && count < cap) {
      const uint64_t take = std::min<uint64_t>(n, p_[i].size() - at);
      if (take > 0) ++count;
      n -= take;
      ++i;
      at = 0;
    }
    return count;
  }
  void TakeIov(uint64_t n, std::vector<iovec>* out) {
    while (n > 0) {
      const uint64_t take = std::min<uint64_t>(n, p_[i_].size() - at_);
      out->push_back({const_cast<char*>(p_[i_].data() + at_), static_cast<size_t>(take)});
      Advance(take);
      n -= take;
    }
  }
  void CopyTo(char* dst, uint64_t n) {
    while (n > 0) {
      const uint64_t take = std::min<uint64_t>(n, p_[i_].size() - at_);
      std::memcpy(dst, p_[i_].data() + at_, take);
      dst += take;
      Advance(take);
      n -= take;
    }
  }

 private:
  void Advance(uint64_t n) {
    at_ += n;
    SkipEmpty();
  }
  void SkipEmpty() {
    while (i_ < p_.size() && at_ == p_[i_].size()) {
      ++i_;
      at_ = 0;
    }
  }

  const std::vector<std::string_view>& p_;
  size_t i_ = 0;
  uint64_t at_ = 0;
};

WindowStage::WindowStage(Sink sink) : sink_(std::move(sink)) {}

WindowStage::~WindowStage() {
  for (Slot& s : slots_) {
    if (s.buf) g_buffer_bytes.fetch_sub(kWindow, std::memory_order_relaxed);
  }
}

uint64_t WindowStage::held_bytes() const { return slots_[0].len + slots_[1].len; }

WindowStage::Slot* WindowStage::Continuing(uint64_t pos) {
  for (Slot& s : slots_) {
    if (s.len > 0 && s.len < kWindow && s.start + s.len == pos) return &s;
  }
  return nullptr;
}

Status WindowStage::TakeSlot(Slot** out) {
  *out = nullptr;
  Slot* oldest = nullptr;
  for (Slot& s : slots_) {
    if (s.len == 0 && s.buf) {
      *out = &s;
      return Status::OK();
    }
    if (s.len > 0 && (oldest == nullptr || s.used < oldest->used)) oldest = &s;
  }
  for (Slot& s : slots_) {
    if (s.len != 0 || s.buf) continue;
    if (g_buffer_bytes.fetch_add(kWindow, std::memory_order_relaxed) + kWindow > kBudgetBytes) {
      g_buffer_bytes.fetch_sub(kWindow, std::memory_order_relaxed);
      break;  // the process holds enough: this file's other slot, if any, is reused
    }
    s.buf.reset(new char[kWindow]);
    *out = &s;
    return Status::OK();
  }
  if (oldest == nullptr) return Status::OK();  // over the budget: none
  // Both hold windows: the one written longest ago goes out as it is.
  MR_RETURN_IF_ERROR(FlushSlot(oldest));
  *out = oldest;
  return Status::OK();
}

Status WindowStage::FlushSlot(Slot* s) {
  if (s->len == 0) return Status::OK();
  const iovec iov{s->buf.get(), static_cast<size_t>(s->len)};
  const uint64_t start = s->start;
  s->len = 0;
  return sink_(start, &iov, 1);
}

Status WindowStage::FlushOverlapping(uint64_t begin, uint64_t end) {
  for (Slot& s : slots_) {
    if (s.len > 0 && s.start < end && begin < s.start + s.len) MR_RETURN_IF_ERROR(FlushSlot(&s));
  }
  return Status::OK();
}

Status WindowStage::Flush() {
  for (Slot& s : slots_) MR_RETURN_IF_ERROR(FlushSlot(&s));
  return Status::OK();
}

Status WindowStage::Write(uint64_t offset, const std::vector<std::string_view>& pieces) {
  uint64_t total = 0;
  for (std::string_view p : pieces) total += p.size();
  Cursor c(pieces);
  for (uint64_t pos = offset; pos < offset + total;) {
    const uint64_t window = pos & ~(kWindow - 1);
    const uint64_t n = std::min(offset + total, window + kWindow) - pos;
    Slot* s = Continuing(pos);
    if (s == nullptr) {
      MR_RETURN_IF_ERROR(FlushOverlapping(pos, pos + n));  // held bytes go out before newer ones over them
      if (pos == window && !(n == kWindow && c.CountPieces(n, IOV_MAX + 1) <= IOV_MAX)) {
        MR_RETURN_IF_ERROR(TakeSlot(&s));
        if (s != nullptr) s->start = window;
      }
    }
    if (s != nullptr) {
      c.CopyTo(s->buf.get() + s->len, n);
      s->len += n;
      s->used = ++clock_;
      if (s->len == kWindow) MR_RETURN_IF_ERROR(FlushSlot(s));
    } else {
      // A whole window in one call, or bytes no window buffer holds.
      iov_.clear();
      c.TakeIov(n, &iov_);
      MR_RETURN_IF_ERROR(sink_(pos, iov_.data(), iov_.size()));
    }
    pos += n;
  }
  return Status::OK();
}

}  // namespace mindrecord
